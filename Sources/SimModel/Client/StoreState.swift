import SimKernel

/// The changing state of one store on one device that stores a zone.
struct StoreState {
  var device: DeviceID
  /// The zone it stores, or −1 for a local-only store.
  var zone: ZoneID
  /// The sync client that runs it.
  var client = SyncClient.coreData
  /// The server change token the store is up to date with.
  var importedToken: Int32 = 0
  /// Whether a finished import from the empty token gave the store a server change token, even
  /// one of an empty zone; false at creation and after a reset. Only an import without one pays
  /// `initialImportTime` (issue 34: a launch's import of an empty zone paid it, and the first
  /// import that found records paid it again).
  var holdsToken = false
  /// The token through which the store holds every change: the last import's, or further, page
  /// by page, while an import over several pages runs.
  var appliedToken: Int32 = 0
  /// The container's setup on the store's first use: not begun, running, or done.
  var setup = SetupPhase.notBegun
  /// An export asked for before the setup ended: it is asked for again when the setup ends.
  var exportAfterSetup = false
  /// The token the UI has merged or fetched.
  var uiToken: Int32 = 0
  /// The token the person has seen.
  var visibleToken: Int32 = 0
  var saveTimer = EventHandle.none
  var uiTimer = EventHandle.none
  var pollTimer = EventHandle.none
  /// Time of app use accumulated toward the next poll (app-use clock).
  var pollUseNanoseconds: Int64 = 0
  var pollDueAt = SimTime.zero
  /// When the store's token last advanced (for token retention).
  var tokenAt = SimTime.zero
  /// Export waits for quota to be freed.
  var quotaStalled = false
  /// When the quota stalled its exports (the quota wait starts there).
  var quotaStalledSince = SimTime.zero
  /// How many of the first changes in the store's history are saved; the rest are unsaved edits.
  var savedCount: Int32 = 0
  /// Between a reset's announcement and the end of its re-import.
  var resetting = false
  /// Setup failed (134410): the store no longer syncs.
  var disabled = false
  /// Its next export saves its zone before any batch (`ClientReaction.recreateZone`).
  var zoneSavePending = false
}

/// Where a store's container setup stands (spec §8: setup precedes the first import).
enum SetupPhase: UInt8 {
  case notBegun, running, done
}

/// One field of a store on a device: the write it holds, its value, and whether it has changed
/// locally since the last export (an unexported local value wins over an import).
///
/// One 8-byte value per field rather than three columns: an edit, a commit and an import each
/// touch all three, which then share a cache line (and one array header per store, not three).
/// The flag rides in the top bit of the write id (ids are non-negative `Int32`s), so the fleet's
/// stores take two thirds of the memory a separate flag took, in the largest record column.
struct LocalField: BitwiseCopyable {
  /// The write's id, with `dirty` in bit 31.
  private var writeAndFlag: UInt32 = 0
  var value: Int32 = 0

  init() {}

  init(write: WriteID, value: Int32, dirty: Bool = false) {
    writeAndFlag = UInt32(bitPattern: write.raw) | (dirty ? Self.flag : 0)
    self.value = value
  }

  private static var flag: UInt32 { 1 << 31 }

  var write: WriteID { WriteID(Int(writeAndFlag & ~Self.flag)) }

  var dirty: Bool {
    get { writeAndFlag & Self.flag != 0 }
    set { writeAndFlag = newValue ? writeAndFlag | Self.flag : writeAndFlag & ~Self.flag }
  }
}
