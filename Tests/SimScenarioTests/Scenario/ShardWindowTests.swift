import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimTestSupport
import Testing

@testable import SimScenario

/// A shard that holds only its own devices (`ShardWindow`, issue 37: ten million devices as ten
/// shards): it runs exactly as the shard of the whole world's scenario, and refuses what it cannot.
@Suite struct ShardWindowTests {
  /// `PartitionTests.world` (eight parts: accounts of two devices, two accounts sharing a zone,
  /// a bulk insert on one member, actions for groups and for every device), with every file a
  /// shard writes.
  static let world = PartitionTests.world.replacingOccurrences(
    of: #""outputs": ["summary", "latency", "activities", "timeline", "objects"]"#,
    with: #""outputs": ["summary", "latency", "activities", "objects"]"#)

  static func decode(_ text: String, shard: RunShard?, windowAbove: Int = 0) throws -> Scenario {
    try ScenarioDecoder.decode(
      Array(text.utf8), file: "w.json", shard: shard.map { ShardWindow.Request(shard: $0, windowAbove: windowAbove) }
    ).0
  }

  @Test func aShardHoldingOnlyItsDevicesRunsAsTheWholeWorldsShard() throws {
    // The whole world as its one shard keeps its tally.
    let all = RunShard(index: 1, count: 1)
    let unsharded = ScenarioRunner.run(try Self.decode(Self.world, shard: all, windowAbove: 1_000), jobs: 2, shard: all)
    let wholeTally = try #require(unsharded.shard?.tally)
    #expect(unsharded.summary.values == ScenarioRunner.run(try Self.decode(Self.world, shard: nil)).summary.values)
    for count in [1, 3, 8] {
      var tally: SummaryTally?
      var fingerprints: [TrajectoryFingerprint] = []
      for index in 1...count {
        let shard = RunShard(index: index, count: count)
        let whole = try Self.decode(Self.world, shard: shard, windowAbove: 1_000)
        #expect(whole.shardWindow == nil)
        let windowed = try Self.decode(Self.world, shard: shard)
        let window = try #require(windowed.shardWindow)
        #expect(window.partCount == 8 && window.worldDevices == 15 && window.parts == shard.parts(of: 8))
        // Only the shard's devices, with their world names and streams.
        let partitioning = WorldPartitioning(whole.spec)
        let held = window.parts.flatMap { partitioning.devices(ofPart: $0) }.map(Int.init).sorted()
        #expect(windowed.spec.devices.map(\.streamIndex) == held.map { Optional($0) })
        #expect(windowed.deviceNames == held.map { whole.deviceNames[$0] })
        #expect(windowed.spec.devices.map(\.account) == held.map { whole.spec.devices[$0].account })
        let a = ScenarioRunner.run(whole, jobs: 2, shard: shard)
        let b = ScenarioRunner.run(windowed, jobs: 1, shard: shard)
        #expect(RunShardFile.text(a, version: "t") == RunShardFile.text(b, version: "t"), "\(shard.text)")
        // Every file, rows included: zones keep the world's ids.
        let (filesA, filesB) = (PartitionTests.files(a), PartitionTests.files(b))
        #expect(filesA.keys.sorted() == filesB.keys.sorted() && filesA.count >= 6)
        for (name, text) in filesA { #expect(text == filesB[name], "\(shard.text) \(name)") }
        if count == 1 { #expect((filesB["latency.csv"]?.count ?? 0) > 10_000) }
        #expect(b.outcome.processedEvents > 0)
        let part = try #require(b.shard)
        if tally == nil { tally = part.tally } else { tally!.add(part.tally) }
        fingerprints += b.partFingerprints
      }
      // The windowed shards add up to the unsharded run.
      let merged = try #require(tally)
      #expect(merged.text == wholeTally.text, "\(count) shards")
      #expect(RunReport.fingerprint(fingerprints) == RunReport.fingerprint(unsharded.partFingerprints))
    }
  }

  static func problems(_ text: String, shard: RunShard?, windowAbove: Int = 0) -> [ScenarioProblem] {
    do {
      return try ScenarioDecoder.decode(
        Array(text.utf8), file: "w.json",
        shard: shard.map { ShardWindow.Request(shard: $0, windowAbove: windowAbove) }
      ).1
    } catch { return error.problems }
  }

  @Test func whatAWindowedShardCannotDoSaysWhy() throws {
    let shard = RunShard(index: 2, count: 3)
    // A coupled world is one part, found before any device is expanded.
    let coupled = Self.world.replacingOccurrences(
      of: #"{"name": "e", "account": 8}"#, with: #"{"name": "e", "account": 8, "stores": ["public"]}"#)
    let one = Self.problems(coupled, shard: shard).filter { $0.severity == .error }
    #expect(one.count == 1 && one[0].path == "devices", "\(one)")
    #expect(one[0].message.contains("cannot be sharded") && one[0].message.contains("public database"))
    let tooMany = Self.problems(Self.world, shard: RunShard(index: 1, count: 9)).filter { $0.severity == .error }
    #expect(tooMany.map(\.message) == ["cannot run in 9 shards: the world has 8 independent parts; use at most 8"])
    // A member outside the shard is no error; a member the world does not have is.
    let unknown = Self.world.replacingOccurrences(of: #""devices": "a#2""#, with: #""devices": "a#6""#)
    let missing = Self.problems(unknown, shard: shard).filter { $0.severity == .error }
    #expect(missing.count == 1 && missing[0].message.contains("no device or group named \"a#6\""), "\(missing)")
    // Its hint counts the world's members, not the shard's.
    #expect(missing.first?.hint == "group \"a\" has 6 members: \"a#0\" to \"a#5\"")
    // Per-row files as a shard of the whole scenario writes them; never timeline.csv.
    let timeline = Self.world.replacingOccurrences(of: #""objects"]"#, with: #""objects", "timeline"]"#)
    #expect(RunShard.problem(try Self.decode(Self.world, shard: shard), count: 3, trace: false) == nil)
    #expect(
      RunShard.problem(try Self.decode(timeline, shard: shard), count: 3, trace: false)?.contains("timeline.csv")
        == true)
    // Over a million devices, a run that is not sharded is refused before any is expanded.
    let large = #"{"version": 1, "devices": [{"name": "a", "count": 1000001, "account": "perDevice"}]}"#
    let refused = Self.problems(large, shard: nil).filter { $0.severity == .error }
    #expect(refused.map(\.path) == ["devices[0].count"])
    #expect(refused.first?.message == "more than 1000000 devices in all")
    #expect(refused.first?.hint?.contains("syncsim run --shard I/N") == true)
    let over = #"{"version": 1, "devices": [{"name": "a", "count": 10000001}]}"#
    #expect(Self.problems(over, shard: shard).contains { $0.path == "devices[0].count" && $0.severity == .error })
  }
}
