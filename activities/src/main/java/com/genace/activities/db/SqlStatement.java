package com.genace.activities.db;

/**
 * One SQL statement and the name it is traced and counted under. Declared as a constant next to the
 * method that binds its parameters, so a reader finds the text, the name and the binding in one
 * place.
 */
public record SqlStatement(String name, String sql) {

  public SqlStatement {
    if (name == null || !name.matches("[a-z][a-z_]*")) {
      throw new IllegalArgumentException("statement name must be lower_snake_case: " + name);
    }
  }

  public static SqlStatement of(String name, String sql) {
    return new SqlStatement(name, sql);
  }
}
