extension WorldSpec {
  /// Per store, in device then store order, whether its copy is replayed rather than kept
  /// (`ClientHost+ReplayedStores`): a public-database store of a Core Data device with no timeline
  /// action that writes, no deduplication, and a model version no record can exceed (so no import
  /// hides a record from it); with a workload only where no entity has a parent. None when
  /// objects are reported or replay is off.
  public func replayedStores(storeZones: [Int32], zoneScopes: [DatabaseScope]) -> [Bool] {
    var result = [Bool](repeating: false, count: storeZones.count)
    guard replaysStores, !reportObjects else { return result }
    let newestVersion = devices.map(\.modelVersion).max() ?? 1
    var writes = [Bool](repeating: false, count: devices.count)
    for action in timeline where action.action.writesToStore {
      for device in action.devices where writes.indices.contains(device) { writes[device] = true }
    }
    // A workload's edits are laid over a replayed copy (`ClientHost+ReplayedWrites`), except where a
    // record may have a parent: an insert then reads which records the store holds live.
    let workloadsReplay = !entities.contains { $0.referencedEntity != nil }
    var store = 0
    for (index, device) in devices.enumerated() {
      let reads =
        (device.workload == nil || workloadsReplay) && !writes[index] && !device.app.deduplicate
        && device.modelVersion >= newestVersion && device.client == .coreData
      for _ in device.stores {
        let zone = Int(storeZones[store])
        result[store] = reads && zone >= 0 && zoneScopes[zone] == .public
        store += 1
      }
    }
    return result
  }
}
