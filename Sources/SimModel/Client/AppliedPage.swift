/// One page an import applied to a replayed store: what the store's copy is replayed from
/// (`ClientHost+ReplayedStores`), in place of the copy itself.
///
/// A page holds the records live at the import's query whose last change up to the import's
/// snapshot falls in (lower, upper]: an import's records come in the order of that change, so its
/// pages split them by token (`World.listPageTokens`).
struct AppliedPage: BitwiseCopyable {
  var lower: Int32
  var upper: Int32
  /// The import's snapshot token, and the zone's set counter (how many fields the server had set)
  /// when it was asked: which records were live, and which change of each was its last.
  var snapshot: Int32
  var queriedAt: Int32
  /// The zone's set counter when the page was applied: the records took the values then.
  var appliedAt: Int32
}
