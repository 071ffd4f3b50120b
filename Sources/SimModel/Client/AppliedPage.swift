/// One page an import applied to a read-only store: what the store's copy is replayed from
/// (`World+ReadOnlyStores`), in place of the copy itself.
struct AppliedPage: BitwiseCopyable {
  /// The import's query: its token range (after, snapshot], and the zone's set counter (how many
  /// fields the server had set) when it was asked, which says which records were live.
  var after: Int32
  var snapshot: Int32
  var queriedAt: Int32
  /// The page's slice of the import's queue (the records in the order of their last change).
  var first: Int32
  var records: Int32
  /// The zone's set counter when the page was applied: the records took the values then.
  var appliedAt: Int32
}
