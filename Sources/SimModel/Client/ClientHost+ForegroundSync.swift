import SimKernel

/// Whether the client imports when its app comes forward (`fetchesOnForeground`): Core Data on
/// every activation, a public-database store by its `fetchOn` rule, CKSyncEngine on a launch.
extension ClientHost {
  /// Whether coming to the front fetches: always for a private or shared store (a foreground app
  /// imports on activation, spec §7); for a public-database store, as `polling.fetchOn` says,
  /// except that an empty store (no change token yet) fetches at its launch under every rule:
  /// Apple's "immediately for empty store files" (spec §7; issue 56, item 5).
  /// A CKSyncEngine app fetches when its process launches (and its engine first starts, whose
  /// state holds no token), and on activation only if `fetchOnActivation`.
  func fetchesOnForeground(_ store: StoreID, launched: Bool) -> Bool {
    if clients.stores[store.index].client == .syncEngine {
      return launched || engine(store).fetchOnActivation || clients.stores[store.index].setup != .done
    }
    guard server.zones[clients.stores[store.index].zone.index].scope == .public else { return true }
    switch clients.settings.polling.fetchOn {
    case .activation: return true
    case .launch: return launched
    case .interval: return launched && !clients.stores[store.index].holdsToken
    }
  }
}
