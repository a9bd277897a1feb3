package com.genace.activities.testing;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Gives tests the shared real PostgreSQL, emptied before each test. */
public final class DatabaseExtension implements BeforeEachCallback, ParameterResolver {

  @Override
  public void beforeEach(ExtensionContext context) {
    TestDatabase.clear();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == DataSource.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return TestDatabase.dataSource();
  }
}
