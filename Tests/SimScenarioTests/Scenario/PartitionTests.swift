import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

/// Independent accounts run apart (issue 19): the parts, and results that do not depend on how
/// they are run.
@Suite struct PartitionTests {
  /// Six accounts of two devices (one offline for half an hour), two accounts sharing a zone, a
  /// scripted edit in the share, a bulk insert, an account of one device, and an action for every
  /// device (each part keeps its own devices of it): eight independent parts.
  static let world = #"""
    {
      "version": 1, "name": "parts", "seed": 7, "duration": "2h", "accounts": 9,
      "devices": [
        {"name": "a", "count": 6, "account": "perDevice"},
        {"name": "b", "count": 6, "account": "perDevice", "appState": "background"},
        {"name": "c", "account": 6, "stores": ["private", {"shared": {"owner": 6, "participants": [7]}}]},
        {"name": "d", "account": 7, "stores": ["private", {"shared": {"owner": 6, "participants": [7]}}]},
        {"name": "e", "account": 8}
      ],
      "workloads": [{"devices": "all", "editsPerHour": 20}],
      "timeline": [
        {"at": "10m", "devices": "b", "action": "goOffline"},
        {"at": "20m", "devices": "c", "action": {"edit": {"kind": "insert", "store": 1}}},
        {"at": "30m", "devices": "a#2", "action": {"bulkInsert": {"count": 50}}},
        {"at": "40m", "devices": "b", "action": "goOnline"},
        {"at": "90m", "devices": "all", "action": "background"}
      ],
      "outputs": ["summary", "latency", "activities", "timeline", "objects"]
    }
    """#

  static func scenario(_ text: String = world) throws -> Scenario {
    try ScenarioDecoder.decode(Array(text.utf8), file: "p.json").0
  }

  static func files(_ report: RunReport) -> [String: String] {
    Dictionary(uniqueKeysWithValues: report.files(version: "test", includeTrace: true).map { ($0.name, $0.text) })
  }

  @Test func batchesShrinkTowardsTheEndSoThreadsFinishTogether() throws {
    // 1,000 accounts of two devices on two threads, at most 512 devices a batch.
    let fleet = #"""
      {"version": 1, "name": "fleet", "duration": "1h", "outputs": ["summary"],
       "devices": [{"name": "a", "count": 1000, "account": "perDevice"},
                   {"name": "b", "count": 1000, "account": "perDevice"}]}
      """#
    let partitioning = WorldPartitioning(try Self.scenario(fleet).spec)
    #expect(partitioning.count == 1000)
    let starts = PartitionedRunner.batchStarts(partitioning, batchDevices: 512, jobs: 2)
    let sizes = zip(starts, starts.dropFirst()).map { 2 * ($1 - $0) }  // devices per batch
    #expect(starts.first == 0 && starts.last == 1000)
    #expect(sizes.allSatisfy { $0 > 0 && $0 <= 512 })
    // A quarter of what is left: 500 devices, then 376, 282, ... down to one part.
    #expect(Array(sizes.prefix(3)) == [500, 376, 282])
    #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $0 >= $1 })
    #expect(sizes.last == 2)
    #expect(sizes.count < 40)
    // The cap holds when a quarter of what is left is more; one thread still gets batches.
    let capped = PartitionedRunner.batchStarts(partitioning, batchDevices: 64, jobs: 2)
    #expect(capped[1] == 32 && capped.last == 1000)
    let single = PartitionedRunner.batchStarts(partitioning, batchDevices: 512, jobs: 1)
    #expect(single[1] == 256 && single.last == 1000)
  }

  @Test func accountsThatShareNothingArePartsInOrderOfTheirFirstDevice() throws {
    let spec = try Self.scenario().spec
    let partitioning = WorldPartitioning(spec)
    #expect(partitioning.coupling == nil)
    #expect(partitioning.count == 8)
    // a#i (device i) and b#i (device 6 + i) share account i; c and d share a zone.
    for account in 0..<6 {
      #expect(Array(partitioning.devices(ofPart: account)) == [Int32(account), Int32(6 + account)])
    }
    #expect(Array(partitioning.devices(ofPart: 6)) == [12, 13])
    #expect(Array(partitioning.devices(ofPart: 7)) == [14])
    // The action for every device: each part gets its own devices of it (found by the swarm: a
    // device of a larger part was looked up past a one-device part's end).
    let last = partitioning.spec(ofPart: 7, in: spec)
    #expect(last.timeline.map(\.devices) == [[0]])
    // A part's world: its devices keep their random streams, accounts renumbered from 0, the
    // timeline keeps the actions that name its devices.
    let part = partitioning.spec(ofPart: 2, in: spec)
    #expect(part.devices.map(\.streamIndex) == [2, 8])
    #expect(part.devices.map(\.account) == [0, 0])
    #expect(part.accountCount == 1)
    #expect(part.timeline.count == 4)  // b offline, the bulk insert on a#2, b online, all
    #expect(part.timeline.map(\.devices) == [[1], [0], [1], [0, 1]])
    let shared = partitioning.spec(ofPart: 6, in: spec)
    #expect(shared.devices.map(\.account) == [0, 1])
    #expect(shared.devices[1].stores[1] == .sharedDatabase(ownerAccount: 0, participants: [1]))
    #expect(shared.timeline.map(\.devices) == [[0], [0, 1]])
  }

  @Test func coupledWorldsRunAsOnePartAndSayWhy() {
    var spec = WorldSpec()
    spec.accountCount = 3
    spec.devices = (0..<3).map { DeviceSpec(name: "d\($0)", account: $0) }
    #expect(WorldPartitioning(spec).count == 3)
    #expect(WorldPartitioning(spec).coupling == nil)
    var coupled: [(WorldSpec, String)] = []
    var publicStore = spec
    publicStore.devices[2].stores = [.privateDatabase, .publicDatabase]
    coupled.append((publicStore, "public database"))
    var throttle = spec
    throttle.server.throttleRequestsPerSecond = 5
    coupled.append((throttle, "request-rate throttle"))
    var holds = spec
    holds.server.retryAfterHoldsContainer = true
    coupled.append((holds, "retryAfterHoldsContainer"))
    var scripted = spec
    scripted.timeline = [TimelineAction(at: .seconds(60), devices: [0], action: .throttle(true))]
    coupled.append((scripted, "timeline throttle"))
    for (world, reason) in coupled {
      let partitioning = WorldPartitioning(world)
      #expect(partitioning.count == 1, "\(reason)")
      #expect(Array(partitioning.devices(ofPart: 0)) == [0, 1, 2])
      #expect(partitioning.coupling?.contains(reason) == true, "\(reason)")
    }
    // A share joins its owner's and participants' accounts only.
    var share = spec
    share.accountCount = 4
    share.devices.append(DeviceSpec(name: "d3", account: 3))
    share.devices[0].stores = [.privateDatabase, .sharedDatabase(ownerAccount: 0, participants: [2])]
    share.devices[2].stores = [.sharedDatabase(ownerAccount: 0, participants: [2])]
    let partitioning = WorldPartitioning(share)
    #expect(partitioning.count == 3)
    #expect((0..<3).map { Array(partitioning.devices(ofPart: $0)) } == [[0, 2], [1], [3]])
  }

  @Test func everyFileIsByteIdenticalForAnyJobsAndBatchSize() throws {
    let scenario = try Self.scenario()
    let reference = ScenarioRunner.run(scenario, trace: true, jobs: 1, batchDevices: 1)
    #expect(reference.parts.count == 8)
    let files = Self.files(reference)
    #expect(
      files.keys.sorted() == [
        "activities.csv", "datapackage.json", "latency.csv", "objects.csv", "resolved.json", "states.csv", "summary.csv",
        "timeline.csv", "trace.csv",
      ])
    #expect(files.values.allSatisfy { $0.utf8.count > 100 })
    for (jobs, batch) in [(2, 1), (3, 1), (2, 5), (3, 512), (1, 4)] {
      let report = ScenarioRunner.run(scenario, trace: true, jobs: jobs, batchDevices: batch)
      #expect(Self.files(report) == files, "jobs \(jobs), batches of \(batch) devices")
    }
  }

  /// The library's `households` (300 accounts of two devices in everyday use): the same files for
  /// one job in batches of one device as for three jobs in batches of 512 (`check` runs it with
  /// the defaults), and the committed results.
  @Test func aLibraryScenarioGivesTheSameFilesForAnyJobsAndBatchSize() throws {
    let bytes = Array(try String(contentsOfFile: packageRoot + "/Scenarios/households.json", encoding: .utf8).utf8)
    let scenario = try ScenarioDecoder.decode(bytes, file: "households.json").0
    let reference = ScenarioRunner.run(scenario, jobs: 1, batchDevices: 1)
    #expect(reference.partFingerprints.count == 300)
    let files = Self.files(reference)
    for (jobs, batch) in [(3, 512)] {
      #expect(
        Self.files(ScenarioRunner.run(scenario, jobs: jobs, batchDevices: batch)) == files,
        "jobs \(jobs), batch \(batch)")
    }
    let committed = try String(contentsOfFile: packageRoot + "/Results/households/latency.csv", encoding: .utf8)
    #expect(files["latency.csv"] == committed)
  }

  /// The partitioned run is the same simulation as one kernel's: every metric but the
  /// fingerprint is equal, and every row is the same once write and activity ids are left out.
  @Test func partsGiveTheSameResultsAsOneKernel() throws {
    let scenario = try Self.scenario()
    let parts = ScenarioRunner.run(scenario, jobs: 2)
    let whole = ScenarioRunner.run(scenario, partitioned: false)
    #expect(whole.parts.count == 1)
    #expect(parts.fingerprint != whole.fingerprint)
    #expect(parts.outcome.processedEvents == whole.outcome.processedEvents)
    #expect(parts.summary.value("writes")! > 250)
    for (info, (a, b)) in zip(parts.summary.catalog, zip(parts.summary.values, whole.summary.values)) {
      if let a, let b {
        #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(info.name): \(a) vs \(b)")
      } else {
        #expect(a == nil && b == nil, "\(info.name)")
      }
    }
    let (a, b) = (Self.files(parts), Self.files(whole))
    #expect(a["timeline.csv"] == b["timeline.csv"])
    for (name, idColumns) in [
      ("latency.csv", ["write"]), ("activities.csv", ["activity"]), ("objects.csv", ["write", "serverWrite"]),
    ] {
      #expect(Self.rowsWithout(idColumns, a[name]!) == Self.rowsWithout(idColumns, b[name]!), "\(name)")
    }
  }

  static func rowsWithout(_ columns: [String], _ text: String) -> [String] {
    let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    let header = lines[0]
    let keep = header.indices.filter { !columns.contains(String(header[$0])) }
    return lines.dropFirst().map { row in keep.map { String(row[$0]) }.joined(separator: ",") }.sorted()
  }

  /// A world whose accounts are coupled runs as before: one kernel, the same fingerprint as
  /// with partitioning turned off.
  @Test func aCoupledWorldIsNotPartitioned() throws {
    let text = Self.world.replacingOccurrences(
      of: #"{"name": "b", "count": 6, "account": "perDevice", "appState": "background"}"#,
      with:
        #"{"name": "b", "count": 6, "account": "perDevice", "appState": "background", "stores": ["private", "public"]}"#
    )
    let scenario = try Self.scenario(text)
    let report = ScenarioRunner.run(scenario, jobs: 2)
    #expect(report.parts.count == 1)
    #expect(report.coupling?.contains("public database") == true)
    let whole = ScenarioRunner.run(scenario, partitioned: false)
    #expect(report.fingerprint == whole.fingerprint)
    #expect(Self.files(report) == Self.files(whole))
  }

  /// A run that writes only its summary keeps no part (the parts are added up and let go).
  @Test func aSummaryOnlyRunKeepsNoPart() throws {
    let text = Self.world.replacingOccurrences(
      of: #""outputs": ["summary", "latency", "activities", "timeline", "objects"]"#, with: #""outputs": ["summary"]"#)
    let report = ScenarioRunner.run(try Self.scenario(text), jobs: 2)
    #expect(report.parts.isEmpty)
    #expect(report.partFingerprints.count == 8)
    // objects.csv asks the world to report its objects (observations, so fingerprinted).
    let withoutObjects = Self.world.replacingOccurrences(of: #", "objects"]"#, with: "]")
    let full = ScenarioRunner.run(try Self.scenario(withoutObjects), jobs: 2)
    #expect(full.parts.count == 8)
    #expect(report.fingerprint == full.fingerprint)
    #expect(report.summary.values.map { $0 ?? -1 } == full.summary.values.map { $0 ?? -1 })
  }
}
