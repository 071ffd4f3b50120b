import SimKernel
import SimMetrics
import SimModel

extension ScenarioBuilder {
  func devices(
    _ node: JSONNode?, accountsNode: JSONNode?, modelVersion: Int, _ spec: inout WorldSpec
  ) -> (groups: [Group], window: ShardWindow?) {
    let declaredAccounts = reader.integer(accountsNode, "accounts", min: 1, max: ScenarioDecoder.Limits.maxAccounts)
    guard let node else {
      reader.problem(
        "devices", "missing required key \"devices\"",
        hint: "for example \"devices\": [{\"name\": \"iphone\"}, {\"name\": \"ipad\"}]")
      return ([], nil)
    }
    guard let entries = reader.array(node, "devices", maxCount: ScenarioDecoder.Limits.maxDevices) else {
      return ([], nil)
    }
    if entries.isEmpty { reader.problem("devices", "no devices", hint: "sync needs at least one device") }
    // A shard decodes up to `maxShardedDevices` and expands only its own.
    let limit = shard == nil ? ScenarioDecoder.Limits.maxDevices : ScenarioDecoder.Limits.maxShardedDevices
    var groups: [Group] = []
    var groupNames = Set<String>()  // membership only: 100,000 groups must not compare names pairwise
    var maxAccount = 0
    var total = 0
    let keys = childrenCache.value("deviceKeys") { parameters.deviceKeys }
    for (index, entry) in entries.enumerated() {
      let path = ScenarioReader.index("devices", index)
      guard let fields = reader.object(entry, path, known: keys) else { continue }
      let name = reader.required(fields, "name", path) { reader.name($0, $1) } ?? "device\(index)"
      if !groupNames.insert(name).inserted {
        reader.problem(ScenarioReader.join(path, "name"), "device name \"\(name)\" is used twice")
      }
      if name.contains("#") || name == "all" || name.isEmpty {
        reader.problem(
          ScenarioReader.join(path, "name"), "\"\(name)\" cannot name a device",
          hint: "'#' is reserved for group members and \"all\" for everyone")
      }
      let count =
        reader.integer(
          fields["count"], ScenarioReader.join(path, "count"), min: 1, max: ScenarioDecoder.Limits.maxShardedDevices)
        ?? 1
      if total + count > limit {
        reader.problem(
          ScenarioReader.join(path, "count"), "more than \(limit) devices in all",
          hint: shard == nil && total + count <= ScenarioDecoder.Limits.maxShardedDevices
            ? "run it in shards (syncsim run --shard I/N): a shard expands only its own devices, "
              + "up to \(ScenarioDecoder.Limits.maxShardedDevices) in the world" : nil)
        break
      }
      var device = DeviceSpec(name: name)
      var perDevice = false
      if let accountNode = fields["account"] {
        let accountPath = ScenarioReader.join(path, "account")
        if case .string(let text) = accountNode.value {
          if text == "perDevice" {
            perDevice = true
          } else {
            reader.problem(
              accountPath, "unknown value \"\(text)\"",
              hint: "an account index, or \"perDevice\" to give member k of the group account k")
          }
        } else if let account = reader.integer(
          accountNode, accountPath, min: 0, max: ScenarioDecoder.Limits.maxAccounts - 1)
        {
          device.account = account
        }
      }
      configure(&device, fields, path, modelVersion: modelVersion)
      groups.append(
        Group(name: name, path: path, first: total, count: count, template: device, perDevice: perDevice))
      maxAccount = max(maxAccount, perDevice ? count - 1 : device.account)
      total += count
    }
    spec.accountCount = max(declaredAccounts ?? 1, maxAccount + 1)
    if let declaredAccounts, declaredAccounts <= maxAccount {
      reader.problem(
        "accounts", "\(declaredAccounts) accounts, but a device uses account \(maxAccount)",
        hint: "accounts are numbered from 0")
    }
    checkStores(spec, groups)
    if let shard, total > shard.windowAbove {
      let window = expandShard(shard, &groups, &spec)
      return (groups, window)
    }
    spec.devices.reserveCapacity(total)
    for group in groups {
      for member in 0..<group.count { spec.devices.append(group.member(member)) }
    }
    return (groups, nil)
  }

  func configure(_ device: inout DeviceSpec, _ fields: Fields, _ path: String, modelVersion: Int) {
    let join = { ScenarioReader.join(path, $0) }
    // `devices` checked the entry's keys against the declared ones and `ScenarioObject.device`'s already.
    readParameters(parameters.device, groups: parameters.deviceGroups, group: "", fields: fields, path, into: &device)
    if fields["syncEngine"] != nil && device.client != .syncEngine {
      reader.warning(
        join("syncEngine"), "ignored: the device's client is coreData", hint: "set \"client\": \"syncEngine\"")
    }
    if let stores = stores(fields["stores"], join("stores")) { device.stores = stores }
    savePolicy(fields["savePolicy"], join("savePolicy"), &device.app)
    uiRefresh(fields["uiRefresh"], join("uiRefresh"), &device.app)
    device.modelVersion =
      reader.integer(fields["modelVersion"], join("modelVersion"), min: 1, max: 1_000_000) ?? modelVersion
  }

  func stores(_ node: JSONNode?, _ path: String) -> [StoreKind]? {
    guard let entries = reader.array(node, path, maxCount: 16) else { return nil }
    if entries.isEmpty { reader.problem(path, "a device needs at least one store") }
    var result: [StoreKind] = []
    for (index, entry) in entries.enumerated() {
      let entryPath = ScenarioReader.index(path, index)
      if case .string(let text) = entry.value {
        switch text {
        case "private": result.append(.privateDatabase)
        case "public": result.append(.publicDatabase)
        case "localOnly": result.append(.localOnly)
        default:
          let hint = suggestion(for: text, among: ["private", "public", "localOnly"]).map { "did you mean \"\($0)\"?" }
          reader.problem(
            entryPath, "unknown store \"\(text)\"",
            hint: hint ?? "private, public, localOnly, or {\"shared\": {\"owner\": 0, \"participants\": [1]}}")
        }
        continue
      }
      guard let fields = reader.object(entry, entryPath, known: ScenarioObject.sharedStore.keys),
        let shared = reader.required(
          fields, "shared", entryPath, { reader.object($0, $1, known: ScenarioObject.share.keys) })
      else { continue }
      let sharedPath = ScenarioReader.join(entryPath, "shared")
      let owner = reader.required(shared, "owner", sharedPath) {
        reader.integer($0, $1, min: 0, max: ScenarioDecoder.Limits.maxAccounts - 1)
      }
      let participantsPath = ScenarioReader.join(sharedPath, "participants")
      let participants =
        reader.array(shared["participants"], participantsPath, maxCount: 100)?
        .enumerated().compactMap {
          reader.integer(
            $0.element, ScenarioReader.index(participantsPath, $0.offset), min: 0,
            max: ScenarioDecoder.Limits.maxAccounts - 1)
        } ?? []
      if let owner { result.append(.sharedDatabase(ownerAccount: owner, participants: participants)) }
    }
    return result
  }

  func checkStores(_ spec: WorldSpec, _ groups: [Group]) {
    for group in groups {
      let device = group.template
      for (index, store) in device.stores.enumerated() {
        if case .sharedDatabase(let owner, let participants) = store {
          if owner >= spec.accountCount || participants.contains(where: { $0 >= spec.accountCount }) {
            reader.problem(
              ScenarioReader.index(ScenarioReader.join(group.path, "stores"), index),
              "the shared zone names an account that does not exist", hint: "there are \(spec.accountCount) accounts")
          } else if device.account != owner && !participants.contains(device.account) {
            reader.warning(
              ScenarioReader.index(ScenarioReader.join(group.path, "stores"), index),
              "the device's account is neither owner nor participant: the store will not sync")
          }
        }
      }
      if device.stores.allSatisfy({ $0 == .localOnly }) {
        reader.warning(
          ScenarioReader.join(group.path, "stores"),
          "device \"\(group.name)\" has only local-only stores: nothing it does syncs")
      }
    }
  }

  func savePolicy(_ node: JSONNode?, _ path: String, _ app: inout AppBehaviour) {
    guard let node else { return }
    if case .string = node.value {
      guard let kind = reader.choice(node, path, SavePolicyKind.self) else { return }
      if kind == .debounce || kind == .interval {
        reader.problem(path, "\(kind.rawValue) needs a duration", hint: "write {\"\(kind.rawValue)\": \"2s\"}")
        return
      }
      app.savePolicy = kind
      return
    }
    guard
      let fields = reader.object(
        node, path, known: ScenarioObject.saveDebounce.keys + ScenarioObject.saveInterval.keys), fields.count == 1,
      let (key, value) = fields.first
    else {
      reader.problem(path, "expected \"immediate\", \"onBackground\", {\"debounce\": d} or {\"interval\": d}")
      return
    }
    guard let delay = reader.duration(value, ScenarioReader.join(path, key), positive: true) else { return }
    app.savePolicy = key == "debounce" ? .debounce : .interval
    app.saveDelaySeconds = delay.seconds
  }

  func uiRefresh(_ node: JSONNode?, _ path: String, _ app: inout AppBehaviour) {
    guard let node else { return }
    if case .string = node.value {
      guard let kind = reader.choice(node, path, UIRefreshKind.self) else { return }
      app.uiRefresh = kind
      return
    }
    guard let fields = reader.object(node, path, known: ScenarioObject.reloadOnImport.keys),
      let debounce = reader.required(fields, "reloadOnImportEvent", path, { reader.duration($0, $1) })
    else { return }
    app.uiRefresh = .reloadOnImportEvent
    app.uiReloadDebounceSeconds = debounce.seconds
  }

  func deviceNames(_ groups: [Group]) -> [String] {
    groups.flatMap { group in (0..<group.count).map { group.memberName(group.worldMember($0)) } }
  }
}
