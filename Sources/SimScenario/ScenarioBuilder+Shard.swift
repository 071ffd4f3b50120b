import SimModel

extension ScenarioBuilder {
  /// Expands only the devices of `shard`'s parts of the world `groups` describe, in world order,
  /// each with its world name, account and random streams (`DeviceSpec.streamIndex`), and points
  /// each group at the members it holds. Nil, with a problem, when the world cannot be sharded so.
  func expandShard(
    _ request: ShardWindow.Request, _ groups: inout [Group], _ spec: inout WorldSpec
  ) -> ShardWindow? {
    let shard = request.shard
    let world = EntryMembers(groups.map { ($0.template, $0.members, $0.perDevice) })
    let partitioning = WorldPartitioning(spec, devices: world)
    if let problem = RunShard.partsProblem(
      partCount: partitioning.count, coupling: partitioning.coupling, count: shard.count)
    {
      reader.problem("devices", problem, hint: "a world of over \(request.windowAbove) devices runs only in shards")
      for index in groups.indices { (groups[index].first, groups[index].count, groups[index].held) = (0, 0, []) }
      return nil
    }
    let parts = shard.parts(of: partitioning.count)
    let starts = partitioning.partStarts
    var held = Array(partitioning.deviceOrder[Int(starts[parts.lowerBound])..<Int(starts[parts.upperBound])])
    held.sort()
    spec.devices.reserveCapacity(held.count)
    var cursor = 0
    for index in groups.indices {
      let group = groups[index]
      var members: [Int32] = []
      groups[index].first = spec.devices.count
      while cursor < held.count && Int(held[cursor]) < group.worldFirst + group.members {
        let member = Int(held[cursor]) - group.worldFirst
        var device = group.member(member)
        device.streamIndex = Int(held[cursor])
        spec.devices.append(device)
        members.append(Int32(member))
        cursor += 1
      }
      groups[index].count = members.count
      groups[index].held = members
    }
    return ShardWindow(
      shard: shard, partCount: partitioning.count, parts: parts, worldDevices: world.count,
      storeZones: worldZones(of: groups, world: world))
  }
}

extension ScenarioBuilder {
  /// The whole world's zone of each store the spec holds, in store order: rows name zones by
  /// the world's ids, which the world's devices before a shard's decide.
  func worldZones(of groups: [Group], world: EntryMembers) -> [Int32] {
    let layout = WorldSpec.zoneLayout(of: world)
    var result: [Int32] = []
    var groupStores = 0  // the world's first store of the group
    for group in groups {
      let stores = group.template.stores.count
      for member in group.held ?? [] {
        let first = groupStores + Int(member) * stores
        result += layout.storeZones[first..<first + stores]
      }
      groupStores += group.members * stores
    }
    return result
  }
}
