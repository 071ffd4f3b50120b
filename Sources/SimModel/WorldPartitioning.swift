import SimKernel

/// How a world splits into parts that cannot affect each other: groups of accounts that share
/// nothing, each simulated by its own kernel with its own state (spec §2: an account's private
/// database is its own; only a shared zone, the public database or a container-wide throttle
/// joins accounts).
///
/// A part's devices keep their random streams (`DeviceSpec.streamIndex`), so a device draws the
/// same numbers whichever part it runs in and whatever else runs beside it. Parts are ordered by
/// their first device; every merged result follows that order, so results do not depend on how
/// parts are batched or how many threads run them.
public struct WorldPartitioning: Sendable {
  /// Every part's devices, part after part, each part's in ascending order.
  public private(set) var deviceOrder: [Int32] = []
  /// Part `i` is `deviceOrder[partStarts[i]..<partStarts[i + 1]]`.
  public private(set) var partStarts: [Int32] = [0]
  /// Why a world of several accounts runs as one part, or nil.
  public private(set) var coupling: String?
  /// Per device: its position in its part.
  private var positionInPart: [Int32] = []
  /// Per part (only when the world has a timeline): the timeline actions naming its devices.
  private var actionsOfPart: [[Int32]] = []

  /// The number of parts.
  public var count: Int { partStarts.count - 1 }

  /// The devices of part `index`, ascending.
  public func devices(ofPart index: Int) -> ArraySlice<Int32> {
    deviceOrder[Int(partStarts[index])..<Int(partStarts[index + 1])]
  }

  /// The whole of `spec` as one part (to compare a partitioned run with one kernel's).
  public init(whole spec: WorldSpec) { self.init(wholeOf: spec.devices.count) }

  init(wholeOf deviceCount: Int) {
    deviceOrder = (0..<Int32(deviceCount)).map { $0 }
    partStarts = [0, Int32(deviceCount)]
  }

  /// Splits `spec` into its independent parts.
  public init(_ spec: WorldSpec) { self.init(spec, devices: spec.devices) }

  /// Splits a world of `spec`'s settings and timeline whose devices are `devices` (a scenario
  /// run in shards lists its device entries' members without expanding them; only accounts and
  /// stores are read).
  @_specialize(exported:true,where Devices == EntryMembers)
  public init<Devices: RandomAccessCollection<DeviceSpec>>(_ spec: WorldSpec, devices: Devices)
  where Devices.Index == Int {
    let deviceCount = devices.count
    let coupling = Self.coupling(of: spec, devices: devices)
    guard coupling == nil, spec.accountCount > 1, deviceCount > 1 else {
      self = WorldPartitioning(wholeOf: deviceCount)
      self.coupling = coupling
      return
    }
    // Sized for every account named, so that a spec still being checked (an account out of
    // range is reported elsewhere) is split without a trap; negative accounts join account 0.
    var accountCount = spec.accountCount
    for device in devices {
      accountCount = max(accountCount, device.account + 1)
      for case .sharedDatabase(let owner, let participants) in device.stores {
        accountCount = max(accountCount, owner + 1, (participants.max() ?? 0) + 1)
      }
    }
    var groups = AccountGroups(count: accountCount)
    for device in devices {
      for case .sharedDatabase(let owner, let participants) in device.stores
      where owner == device.account || participants.contains(device.account) {
        groups.join(max(0, owner), max(0, device.account))
        for participant in participants { groups.join(max(0, owner), max(0, participant)) }
      }
    }
    // Parts in order of their first device: a counting sort of devices by their part.
    var partOfRoot = [Int32](repeating: -1, count: accountCount)
    var partOfDevice = [Int32](repeating: 0, count: deviceCount)
    var sizes: [Int32] = []
    for (index, device) in zip(0..., devices) {
      let root = groups.root(max(0, device.account))
      if partOfRoot[root] < 0 {
        partOfRoot[root] = Int32(sizes.count)
        sizes.append(0)
      }
      partOfDevice[index] = partOfRoot[root]
      sizes[Int(partOfRoot[root])] += 1
    }
    partStarts = [0]
    partStarts.reserveCapacity(sizes.count + 1)
    for size in sizes { partStarts.append(partStarts.last! + size) }
    var next = Array(partStarts.dropLast())
    deviceOrder = [Int32](repeating: 0, count: deviceCount)
    positionInPart = [Int32](repeating: 0, count: deviceCount)
    for index in 0..<deviceCount {
      let part = Int(partOfDevice[index])
      positionInPart[index] = next[part] - partStarts[part]
      deviceOrder[Int(next[part])] = Int32(index)
      next[part] += 1
    }
    // Each action listed once per part it names (an action for every device of a fleet would
    // otherwise be scanned once per part).
    guard !spec.timeline.isEmpty else { return }
    actionsOfPart = [[Int32]](repeating: [], count: sizes.count)
    for (index, action) in spec.timeline.enumerated() {
      for device in action.devices where device >= 0 && device < deviceCount {
        let part = Int(partOfDevice[device])
        if actionsOfPart[part].last != Int32(index) { actionsOfPart[part].append(Int32(index)) }
      }
    }
  }

  /// What joins every account of `spec` into one part, or nil when accounts can run apart.
  static func coupling(of spec: WorldSpec, devices: some Collection<DeviceSpec>) -> String? {
    if devices.contains(where: { $0.stores.contains(.publicDatabase) }) {
      return "the public database: every account reads and writes the same zone"
    }
    if spec.server.throttleRequestsPerSecond != nil {
      return "the container's request-rate throttle (server.throttle) counts every account's requests"
    }
    if spec.server.retryAfterHoldsContainer {
      return "server.retryAfterHoldsContainer: one device's retry-after holds every device"
    }
    if let action = spec.timeline.first(where: { $0.action.holdsContainer }) {
      return "a timeline \(action.action.name) action holds the whole container"
    }
    return nil
  }

  /// The world of part `index` alone: its devices (with their streams), their accounts
  /// renumbered in order of first mention, and the timeline actions that name its devices.
  public func spec(ofPart index: Int, in spec: WorldSpec) -> WorldSpec {
    guard count > 1 else { return spec }
    let devices = devices(ofPart: index)
    let first = partStarts[index]
    var localAccount: [Int: Int] = [:]  // lookup only
    func account(_ global: Int) -> Int {
      if let local = localAccount[global] { return local }
      localAccount[global] = localAccount.count
      return localAccount.count - 1
    }
    var part = spec
    part.devices = devices.map { global in
      var device = spec.devices[Int(global)]
      device.streamIndex = device.streamIndex ?? Int(global)
      device.account = account(device.account)
      device.stores = device.stores.map { store in
        guard case .sharedDatabase(let owner, let participants) = store else { return store }
        return .sharedDatabase(ownerAccount: account(owner), participants: participants.map(account))
      }
      return device
    }
    part.accountCount = max(1, localAccount.count)
    part.timeline = (actionsOfPart.isEmpty ? [] : actionsOfPart[index]).map { actionIndex in
      var action = spec.timeline[Int(actionIndex)]
      // The action's devices in this part (an action for "all" names every part's), renumbered.
      let size = Int(partStarts[index + 1] - first)
      action.devices = action.devices.compactMap { device in
        guard device >= 0 && device < positionInPart.count else { return nil }
        let position = Int(positionInPart[device])
        return position < size && Int(deviceOrder[Int(first) + position]) == device ? position : nil
      }
      return action
    }
    return part
  }
}

/// Accounts joined into groups (union–find with path halving).
struct AccountGroups {
  var parent: [Int32]

  init(count: Int) { parent = (0..<Int32(count)).map { $0 } }

  mutating func root(_ account: Int) -> Int {
    var node = account
    while Int(parent[node]) != node {
      parent[node] = parent[Int(parent[node])]
      node = Int(parent[node])
    }
    return node
  }

  mutating func join(_ a: Int, _ b: Int) {
    let (rootA, rootB) = (root(a), root(b))
    if rootA != rootB { parent[max(rootA, rootB)] = Int32(min(rootA, rootB)) }
  }
}
