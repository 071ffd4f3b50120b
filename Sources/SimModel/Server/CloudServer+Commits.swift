import SimKernel

/// What a client's save and export change on the server, and the marks a client's pass leaves on
/// a zone's objects: the only ways the sync clients change the server's zones (spec §6).
///
/// The zones are shared columns (`Column`), so these change them through the server that a
/// client holds read only (`ClientHost.server`); `Scripts/architecture/component-graph.py`
/// fails on a client facet that assigns into the server's state itself.
extension CloudServer {
  // The methods that are not inlined are `mutating`, though a column's element changes in place
  // either way: called through `get` on the world's `server` they copied the whole server first
  // (a memcpy and a retain on every commit and insert).

  /// Registers a new object in `zone`, with room for its fields; entity −1 is a CDMR join record
  /// (one field).
  mutating func createObject(zone: Int, entity: Int, poison: Bool) -> ObjectID {
    let object = ObjectID(zones[zone].objects.count)
    let fieldCount = entity >= 0 ? entityFieldCount[entity] : 1
    zones[zone].objects.append(ObjectState(entity: Int32(entity), fieldBase: zones[zone].fieldCount, poison: poison))
    zones[zone].fieldCount += Int32(fieldCount)
    zones[zone].server.append(repeating: ServerField(), count: fieldCount)
    return object
  }

  /// Sets what a new object's record carries from its creator: its key (−1: none), the model
  /// version it was made with, whether it is a contribution, and its parent (−1: none).
  mutating func describeObject(zone: Int, _ object: ObjectID, key: Int32, version: Int32, contribution: Bool) {
    zones[zone].objects[object.index].key = key
    zones[zone].objects[object.index].version = version
    zones[zone].objects[object.index].contribution = contribution
  }

  /// Sets a new object's parent (its raw id; −1: none).
  mutating func setParent(zone: Int, _ object: ObjectID, _ parent: Int32) {
    zones[zone].objects[object.index].parent = parent
  }

  /// Records a change of `object` by `store` in `zone`'s change log; returns its sequence.
  @inline(__always)
  func recordChange(zone: Int, of object: ObjectID, by store: StoreID, at now: SimTime) -> Int32 {
    zones[zone].recordChange(of: object, by: store, at: now)
  }

  /// Sets a server field (and notes the set, in a zone that keeps its history).
  @inline(__always)
  func setField(zone: Int, _ field: Int, write: WriteID, value: Int32) {
    zones[zone].server[field] = ServerField(write: write, value: value)
    if zones[zone].keepsHistory { zones[zone].noteSet(field, write: write, value: value) }
  }

  /// After a commit of `object` in a zone that keeps its history: counts it in the zone's index
  /// of live records (at its last change while live, else not at all) and notes a public delete.
  mutating func noteCommitted(zone: Int, _ object: ObjectID, publicDelete: Bool) {
    guard zones[zone].keepsHistory else { return }
    let record = zones[zone].objects[object.index]
    let live = zones[zone].server[Int(record.fieldBase)].value != 0
    let cost = recordCost(zone: zone, object: object)
    zones[zone].liveRecords.set(object.index, token: live ? record.lastChange : 0, size: cost.record + cost.assets)
    if publicDelete { zones[zone].publicDeletes.append(object) }
  }

  /// Drops the change log's superseded changes once it is long (`ZoneState`).
  @inline(__always)
  func compactChangeLogIfLong(zone: Int) { zones[zone].compactChangeLogIfLong() }

  /// Marks `object` as seen by the client's pass `stamp`; false if it already was (a pass sees
  /// each object once). The mark lives beside the object, where the pass reads it anyway.
  @inline(__always)
  func stamp(zone: Int, _ object: ObjectID, with stamp: Int32) -> Bool {
    guard zones[zone].objects[object.index].stamp != stamp else { return false }
    zones[zone].objects[object.index].stamp = stamp
    return true
  }
}
