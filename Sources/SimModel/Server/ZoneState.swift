import SimKernel

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
  /// The server change token: how many changes the zone has had.
  var changeCount: Int32 = 0
  /// When the last change was made.
  var lastChangeAt = SimTime.zero
  /// Changes in token order, each record's latest among them: what fetching the changes since a
  /// token returns (the latest version of each changed record). An earlier change of a record is
  /// dropped when the log is compacted, so the log grows with records, not with writes.
  var changeLog = RowBuffer<ZoneChange>()
  /// The account that owns the zone (its storage quota is charged).
  var ownerAccount: Int32 = 0
  /// Whether the zone keeps every change and every field the server set, in order: what the
  /// copies of its replayed stores are replayed from (`ClientHost+ReplayedStores`). Only a zone
  /// with such stores keeps them; they grow with writes, not with readers.
  var keepsHistory = false
  /// Every change, in token order (never compacted).
  var allChanges: [ZoneChange] = []
  /// Every field the server set, in order: a set's position is the zone's set counter then.
  var fieldSets: [FieldSet] = []
  /// Records a public delete set (no change a store could fetch), in order, repeats allowed.
  var publicDeletes: [ObjectID] = []
  /// Its live records by their last change, for replayed stores' imports.
  var liveRecords = LiveRecordIndex()
  /// Per change in `allChanges`, the token of its record's change before it (0: none): a
  /// record's changes as a chain, which replaying a copy while the run goes on walks back.
  var previousChange: [Int32] = []
  /// Per set in `fieldSets`, the position of its field's set before it (−1: none); and per field,
  /// the position of its last set (−1: none).
  var previousSet: [Int32] = []
  var lastSetOfField: [Int32] = []

  init(scope: DatabaseScope) { self.scope = scope }
}

/// One field of a record at the server: the write that set it last, and its value.
struct ServerField: BitwiseCopyable {
  var write = WriteID.none
  var value: Int32 = 0
}

/// A field the server set: the field, and the write and value it then held.
struct FieldSet: BitwiseCopyable {
  var field: Int32
  var write: WriteID
  var value: Int32
}

/// One change of a zone at the server: the object it touched and its token (when it was made
/// is kept only for the latest change, `ZoneState.lastChangeAt`: what token retention reads).
struct ZoneChange: BitwiseCopyable {
  var object: ObjectID
  var token: Int32
}

extension ZoneState {
  /// The position in `changeLog` of the first change after `token`.
  func firstChange(after token: Int32) -> Int {
    var (low, high) = (0, changeLog.count)
    while low < high {
      let mid = (low + high) / 2
      if changeLog[mid].token > token { high = mid } else { low = mid + 1 }
    }
    return low
  }

  /// Whether `change` is its record's latest (what a fetch of changes returns for the record).
  @inline(__always)
  func isLatest(_ change: ZoneChange) -> Bool { objects[change.object.index].lastChange == change.token }

  /// Drops every change that is not its record's latest, once they are as many as the records
  /// and a margin (amortised: the log at least halves each time).
  /// Records a new change of `object` by `store` at `now`: the next sequence in the change log,
  /// which it returns, as the object's last change.
  @inline(__always)
  mutating func recordChange(of object: ObjectID, by store: StoreID, at now: SimTime) -> Int32 {
    changeCount += 1
    changeLog.append(ZoneChange(object: object, token: changeCount))
    if keepsHistory {
      allChanges.append(ZoneChange(object: object, token: changeCount))
      previousChange.append(objects[object.index].lastChange)
    }
    lastChangeAt = now
    objects[object.index].lastChange = changeCount
    objects[object.index].lastStore = store
    return changeCount
  }

  /// Notes that the server set `field` (a zone that keeps its history).
  mutating func noteSet(_ field: Int, write: WriteID, value: Int32) {
    if lastSetOfField.count <= field {
      lastSetOfField.append(
        contentsOf: repeatElement(-1, count: max(field + 1, Int(fieldCount)) - lastSetOfField.count))
    }
    previousSet.append(lastSetOfField[field])
    lastSetOfField[field] = Int32(fieldSets.count)
    fieldSets.append(FieldSet(field: Int32(field), write: write, value: value))
  }

  /// The object whose fields hold `field` (objects' fields are laid out in object order).
  func object(atField field: Int) -> ObjectID {
    var (low, high) = (0, objects.count)
    while low < high {
      let mid = (low + high) / 2
      if Int(objects[mid].fieldBase) <= field { low = mid + 1 } else { high = mid }
    }
    return ObjectID(low - 1)
  }

  /// The record's last change up to `snapshot` (0: none), walking its chain back from its latest.
  func lastChange(of object: ObjectID, upTo snapshot: Int32) -> Int32 {
    var token = objects[object.index].lastChange
    while token > snapshot { token = previousChange[Int(token) - 1] }
    return token
  }

  /// The position of the last set of any of `fields` (−1: none).
  func lastSet(of fields: Range<Int>) -> Int32 {
    var last: Int32 = -1
    for field in fields where field < lastSetOfField.count { last = max(last, lastSetOfField[field]) }
    return last
  }

  /// The field's value when the set counter was `counter`: its last set before then, or none.
  func value(of field: Int, at counter: Int32) -> ServerField {
    var set = field < lastSetOfField.count ? lastSetOfField[field] : -1
    while set >= counter { set = previousSet[Int(set)] }
    guard set >= 0 else { return ServerField() }
    return ServerField(write: fieldSets[Int(set)].write, value: fieldSets[Int(set)].value)
  }

  mutating func compactChangeLogIfLong() {
    guard changeLog.count > 2 * objects.count + 1024 else { return }
    var kept = 0
    for index in changeLog.indices where isLatest(changeLog[index]) {
      changeLog[kept] = changeLog[index]
      kept += 1
    }
    changeLog.removeLast(changeLog.count - kept)
  }
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
