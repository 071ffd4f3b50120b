import SimModel

/// The map from a part's local store and zone ids to the whole world's.
struct PartIDs {
  /// Per device of the whole world: the id of its first store.
  let firstStore: [Int32]
  /// Per store of the whole world: its zone (−1 none).
  let storeZones: [Int32]

  /// The ids of `spec`'s world, or, for a scenario holding one shard's devices, its stores' zones
  /// in the whole world (`ShardWindow.storeZones`; its stores keep their own ids, which rows
  /// use only as places on their device).
  init(_ spec: WorldSpec, window: ShardWindow? = nil) {
    var first: [Int32] = []
    first.reserveCapacity(spec.devices.count + 1)
    var next: Int32 = 0
    for device in spec.devices {
      first.append(next)
      next += Int32(device.stores.count)
    }
    first.append(next)
    firstStore = first
    storeZones = window?.storeZones ?? spec.zoneLayout().storeZones
  }

  /// The whole world's stores and zones of a part made of `devices`, whose own spec is `part`.
  func map(devices: ArraySlice<Int32>, part: WorldSpec) -> (stores: [Int32], zones: [Int32]) {
    var stores: [Int32] = []
    for device in devices { stores += firstStore[Int(device)]..<firstStore[Int(device) + 1] }
    let local = part.zoneLayout().storeZones
    var zones = [Int32](repeating: -1, count: Int((local.max() ?? -1) + 1))
    for (index, zone) in local.enumerated() where zone >= 0 { zones[Int(zone)] = storeZones[Int(stores[index])] }
    return (stores, zones)
  }
}
