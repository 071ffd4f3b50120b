import SimKernel

/// The state of one device: what its spec fixes, its random streams, and what changes.
///
/// One value per device, so that the first touch of a device whose turn comes (minutes after its
/// last event) lands on neighbouring cache lines rather than in three arrays.
struct DeviceState {
  var traits: DeviceTraits
  var streams: DeviceStreams
  var account: Int32
  var firstStore: Int32
  var storeCount: Int32
  var app: AppState
  var forceQuit = false
  var launchedForPush = false
  var batteryPercent: Double
  var pluggedIn: Bool
  var lowPowerMode: Bool
  var online: Bool
  /// How many of its activities wait on a policy (the length of `World.waiting` for it).
  var waitingCount: Int32 = 0
  /// Its rate-limit run bookkeeping (see `RunHistory`).
  var runs = DeviceRuns()
  var uploadBytesPerSecond: Double
  var downloadBytesPerSecond: Double
  /// The zone of the push APNs stores for this offline device (newest kept), or −1.
  var storedPushZone: Int32 = -1
  var storedPushAt = SimTime.zero
  /// The zone of the push held by the device's push budget (newest kept), or −1.
  var heldPushZone: Int32 = -1
  /// The zone of the push APNs defers while the device is under power restriction, or −1.
  var deferredPushZone: Int32 = -1
  var lastPushSentAt = SimTime(nanoseconds: Int64.min / 2)
}

/// What a device's spec fixes for the whole run, copied out of `DeviceSpec` for the hot paths
/// (there these values sit among the spec's strings and arrays, several cache lines apart).
struct DeviceTraits {
  var app: AppBehaviour
  var workload: Workload?
  var modelVersion: Int32
}

/// A device's random streams, one per kind of draw, so that a change in one kind of draw
/// leaves the others' sequences alone. Kept side by side: an edit's chain of events draws from
/// several of them within moments, and they then share cache lines.
struct DeviceStreams {
  var edit: RandomStream
  var usage: RandomStream
  var network: RandomStream
  var scheduler: RandomStream
  var push: RandomStream
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

/// One field of a record at the server: the write that set it last, and its value.
struct ServerField: BitwiseCopyable {
  var write = WriteID.none
  var value: Int32 = 0
}

/// One change of a zone at the server: the object it touched and when (for token retention).
///
/// One value per change rather than two columns: a commit appends both, and an import reads
/// the objects of its changes and then the time of the last.
struct ZoneChange: BitwiseCopyable {
  var object: ObjectID
  var at: SimTime
}

/// One change recorded in a store's persistent history (or still unsaved in its context).
struct Change: BitwiseCopyable {
  var object: ObjectID
  var field: Int32
  var write: WriteID
}

/// The changing state of one store on one device that stores a zone.
struct StoreState {
  var device: DeviceID
  /// The zone it stores, or −1 for a local-only store.
  var zone: ZoneID
  var pendingExport = ActivityID.none
  var runningExport = ActivityID.none
  var pendingImport = ActivityID.none
  var runningImport = ActivityID.none
  /// Approved, unfinished activities of this store's group.
  var runningInGroup: Int32 = 0
  /// The server change token the store is up to date with.
  var importedToken: Int32 = 0
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
  /// How many of the first changes in the store's history are saved; the rest are unsaved edits.
  var savedCount: Int32 = 0
  /// Between a reset's announcement and the end of its re-import.
  var resetting = false
  /// Setup failed (134410): the store no longer syncs.
  var disabled = false
}

/// The server's state of one zone, and the registry of its objects.
struct ZoneState: ~Copyable {
  var scope: DatabaseScope
  /// Stores with access, in id order: `World.zoneStores[storeStart..<storeStart + storeCount]`
  /// (one shared list, where an array per zone was a cold allocation on every push fan-out).
  var storeStart: Int32 = 0
  var storeCount: Int32 = 0
  /// The zone's objects: what the server and the registry know of each.
  var objects = RowBuffer<ObjectState>()
  var fieldCount: Int32 = 0
  /// The server's fields of all its objects (an object's start at its `fieldBase`).
  var server = RowBuffer<ServerField>()
  /// Change `i + 1` touched `changeLog[i].object`: the server change token is the count.
  var changeLog = RowBuffer<ZoneChange>()
  /// The account that owns the zone (its storage quota is charged).
  var ownerAccount: Int32 = 0

  init(scope: DatabaseScope) { self.scope = scope }
}

/// One object of a zone, as the server and the object registry know it.
///
/// One 36-byte value per object rather than a column per attribute: a commit, an export's
/// checks and an import each read several attributes of the same object, which then share
/// a cache line.
struct ObjectState: BitwiseCopyable {
  /// Its entity, or −1 for a CDMR join record.
  var entity: Int32
  /// Index of its first field in the zone's field arrays.
  var fieldBase: Int32
  /// The last change that touched it (its server change token), and the store that made it.
  var lastChange: Int32 = 0
  var lastStore = StoreID.none
  /// Its logical key (−1 none).
  var key: Int32 = -1
  /// The parent object it points to (−1 none).
  var parent: Int32 = -1
  /// The model version of the app that made it.
  var version: Int32 = 1
  /// Scratch mark: the last pass over the zone's changes that saw it (see `World.nextStamp`).
  var stamp: Int32 = 0
  /// The server refuses it (a record that fails every export).
  var poison: Bool
  /// Whether it is a contribution (an add-a-contribution insert).
  var contribution = false
}

/// One scheduler activity.
struct ActivityState {
  var kind: ActivityKind
  var store: StoreID
  var trigger: ActivityTrigger
  var requestedAt: SimTime
  var launchedForPush: Bool
  var phase = ActivityPhase.deciding
  /// The monotonic id observers see (the slot is reused after the activity finishes).
  var logID: Int32 = 0
  var blockedPolicy: Int32 = -1
  var blockedSince = SimTime.zero
  var recheck = EventHandle.none
  /// Import: the server token captured at start; pages left.
  var snapshotToken: Int32 = 0
  var pagesLeft: Int32 = 0
  var pagesTotal: Int32 = 0
  var records: Int32 = 0
  var bytes: Int64 = 0
  /// Export: the plan's next batch and the history prefix it covers.
  var nextBatch: Int32 = 0
  var historyCovered: Int32 = 0
  /// Consecutive network-failure retries of the current request.
  var attempt: Int = 0
  /// Whether the current batch was already merged after serverRecordChanged.
  var merged = false
}

enum ActivityPhase: UInt8 {
  case deciding, blocked, approved, running, finished
}

/// An export's plan: the changes it carries, grouped into records and batches.
struct ExportPlan {
  var entries: [Change] = []
  /// Per batch: end index into `entries`, record count, bytes.
  var batchEnds: [Int32] = []
  var batchRecords: [Int32] = []
  var batchBytes: [Int64] = []

  /// Ends a batch after entry `end - 1`, with its record count and bytes.
  mutating func appendBatch(end: Int, records: Int32, bytes: Int64) {
    batchEnds.append(Int32(end))
    batchRecords.append(records)
    batchBytes.append(bytes)
  }

  /// Keeps the first `count` batches and forgets the rest.
  mutating func keepBatches(_ count: Int) {
    guard count < batchEnds.count else { return }
    batchEnds.removeLast(batchEnds.count - count)
    batchRecords.removeLast(batchRecords.count - count)
    batchBytes.removeLast(batchBytes.count - count)
  }

  /// Empties the plan, keeping its buffers for the next export.
  mutating func clear() {
    entries.removeAllKeepingCapacity()
    batchEnds.removeAllKeepingCapacity()
    batchRecords.removeAllKeepingCapacity()
    batchBytes.removeAllKeepingCapacity()
  }
}

/// One write, as the world remembers it: the store that made it, the write it replaced there, and
/// its value. One 12-byte value per write rather than three columns: a commit's lost-update check
/// reads a write's store and what it was based on together, and a new write appends once.
struct WriteState: BitwiseCopyable {
  var store: StoreID
  var basedOn: WriteID
  var value: Int32
}
