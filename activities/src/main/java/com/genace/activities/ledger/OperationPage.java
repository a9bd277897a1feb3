package com.genace.activities.ledger;

import java.util.List;

/** One page of a listing, and whether more rows follow it ({@code --after} the last one). */
public record OperationPage(List<OperationRow> rows, boolean more) {

  public OperationPage {
    rows = List.copyOf(rows);
  }
}
