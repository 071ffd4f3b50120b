import SimKernel

/// The sync clients' state, per store, per activity slot and per write: what Core Data's
/// mirroring and CKSyncEngine hold on a device (spec §4, §6, §8, §10), apart from the server,
/// the scheduler and the push service that they reach through `World`'s routing.
///
/// `World` holds one and its client facets (`Client/World+*`) read and change it; nothing
/// outside the clients does, except the end-of-run readers (convergence, memory, invariants).
struct SyncClients {
  let stores = Column<StoreState>()
  /// Per store: persistent history not yet exported, then the unsaved edits (the first
  /// `StoreState.savedCount` are saved), and the local store.
  let history = Column<RowBuffer<Change>>()
  let local = Column<RowBuffer<LocalField>>()
  /// Per store: children held without their parent, and since when.
  var orphans: [[(child: ObjectID, since: SimTime)]] = []
  /// Per activity slot: what the client does with the activity in it (`ActivityRun`).
  let runs = Column<ActivityRun>()
  /// Per activity slot: the plan of the export running in it (emptied when it ends).
  let plans = Column<ExportPlan>()
  /// Per activity slot: the records an import fetches, in the order the server returns them.
  let importQueues = Column<[ObjectID]>()
  /// Per activity slot of an import over several pages: after each page, the token through
  /// which the store then holds every change (empty for one-page imports).
  let importPageTokens = Column<[Int32]>()
  var scratch = PlanningScratch()
  /// What the clients read of the scenario, given at the world's start.
  var settings = ClientSettings()
  /// Per store of a CKSyncEngine app whose state is written with a lag: what its written state
  /// holds (empty in worlds without one: `SyncEngineState`).
  var engineStates: [SyncEngineState] = []
  /// Per CKSyncEngine store (by raw id): the fields the app saved outside the engine, and the
  /// write it saved there, which the engine does not fetch until the app is launched again
  /// (`saveOutsideEngine`). Looked up only.
  var engineBlind: [Int32: [(field: Int32, write: WriteID, kept: LocalField)]] = [:]
  /// The last stamp handed out for de-duplicating objects (each object keeps the one it saw).
  var stampCounter: Int32 = 0
  /// Per store, whether its copy is replayed rather than kept (`ClientHost+ReplayedStores`); empty
  /// when no store is replayed. Then each store's logged pages, its running import's query, and
  /// what the end of the run reads of its copy.
  var replayed: [Bool] = []
  var appliedPages = AppliedPageLog(stores: 0)
  /// Per replayed store, the fields it set itself, by field (`ClientHost+ReplayedWrites`).
  var overlays: [OverlayFields] = []
  /// Per replayed store, its live objects by entity, a cache (`ReplayedLiveIndex`).
  var replayedLive = ReplayedLiveIndex(stores: 0)
  var replayQueries: [ReplayQuery] = []
  /// Whether replayed stores' imports are sized from their zones' index of live records.
  var replayedImportsIndexed = false
  var replayedEnds: [ReplayedEnd] = []
  /// Per store, whether its logged pages may merge (a replayed store of a device that never
  /// writes: no overlay counts its pages).
  var mergesPages: [Bool] = []
  /// Per write (id 0 unused): its store, the write it replaced there, and its value, while the
  /// world can still read it (`WriteTable`).
  var writes = WriteTable()
  /// How many new writes trigger the next look at releasing writes.
  var writesReleaseAt = 0
  /// Per stalled store (by index), the answer that stalled it (`ClientReaction.stall`): until
  /// then it asks for nothing, and a request of its still on the wire is answered the same.
  /// Sparse, as few stores ever stall, and read by key only.
  var stalls: [Int32: RequestFailure] = [:]
  /// Per held store (by index), until when it asks for nothing, and the cause its waits are
  /// booked to (`hold`: a stall, or a timeline action). Sparse and read by key only, as `stalls`.
  var holds: [Int32: (until: SimTime, cause: WaitCause)] = [:]
  #if DEBUG
    /// How often each export and then each import transition was taken (`ExportTransition`,
    /// `ImportTransition`), for the test that every documented transition is reached.
    var transitionsTaken = [Int](repeating: 0, count: ExportTransition.allCases.count + ImportTransition.allCases.count)
    /// How often the index of a replayed store's live objects answered otherwise than the scan.
    var replayedLiveMismatches = 0
    var replayedLiveLooks = 0
  #endif

  /// ln(4,096 + 2): the zone size at which an import's apply time is `applyTimePerRecord`.
  static let logReferenceRecords = DeterministicMath.log(4_098)

  /// Starts the run of the activity the scheduler just gave `slot`: nothing done yet. (Mutating
  /// so that a client facet calls it in place, not on a copy of every client's state.)
  @inline(__always)
  mutating func beginRun(_ slot: ActivityID) {
    while runs.count <= slot.index { runs.append(ActivityRun()) }
    runs[slot.index] = ActivityRun()
  }

  /// A fresh stamp for marking a zone's objects (so a pass sees each object once).
  mutating func nextStamp() -> Int32 {
    stampCounter &+= 1
    return stampCounter
  }
}
