import SimKernel

/// What a CKSyncEngine app has written of its engine's state, for one store: the app writes the
/// state's serialization `SyncEngineBehaviour.statePersistLag` after the state changes, and a
/// crash before that loses the pending changes added since. [A] CKSyncEngine.State.Serialization
///
/// Write ids grow with time, so the written state is a boundary: pending changes of writes below
/// `writtenThrough` are in it, later ones are not yet.
struct SyncEngineState {
  /// The first write id the written state does not hold.
  var writtenThrough: Int32 = 0
  /// The boundary the next write of the state will hold (the next write id when it was asked for).
  var writing: Int32 = 0
  /// The next write id at the store's last save: a save after `writing` was fixed asks for
  /// another write of the state.
  var savedThrough: Int32 = 0
  /// Whether a write of the state is under way.
  var writePending = false
}
