import SimKernel
import SimMetrics

/// `run-shard.txt`: what a shard of a run (`syncsim run --shard I/N`) keeps beside its files so
/// that `syncsim merge` can add the shards up into the unsharded run's files: which run and
/// shard it is, its parts, its parts' fingerprints, the writes and activities its rows number,
/// and its tally (`SummaryTally.text`).
public struct RunShardFile: Sendable {
  public static let name = "run-shard.txt"
  static let format = "syncsim-run-shard 1"

  public var scenario: String
  public var scenarioHash: String
  public var seed: UInt64
  public var version: String
  public var shard: RunShard
  public var parts: Range<Int>
  public var partCount: Int
  public var writes: Int
  public var activities: Int
  public var endTime: SimTime
  public var stoppedAtEventLimit: Bool
  public var fingerprints: [TrajectoryFingerprint]
  public var tally: SummaryTally

  /// The file of `report`, a shard's run. - Precondition: `report.shard` is set.
  static func text(_ report: RunReport, version: String) -> String {
    let shard = report.shard!
    let lines = [
      format, "scenario \(report.scenario.name)", "scenarioHash \(report.scenarioHash)", "seed \(report.seed)",
      "version \(version)", "shard \(shard.shard.index) \(shard.shard.count)",
      "parts \(shard.parts.lowerBound) \(shard.parts.upperBound) \(shard.partCount)",
      "partWrites \(shard.writes)", "partActivities \(shard.activities)",
      "endTime \(report.outcome.endTime.nanoseconds)",
      "eventLimit \(report.outcome.stopReason.isEventLimit ? 1 : 0)",
      "fingerprints " + report.partFingerprints.map { String($0.value, radix: 16) }.joined(separator: " "),
    ]
    return lines.joined(separator: "\n") + "\n" + shard.tally.text
  }

  /// Why a folder's `run-shard.txt` cannot be merged.
  public struct Problem: Error {
    public let message: String
    init(_ message: String) { self.message = message }
  }

  /// Reads a shard's file, or says why it is not one or is malformed.
  public static func read(_ text: String) -> Result<RunShardFile, Problem> {
    guard text.hasPrefix(format + "\n") else { return .failure(Problem("not a run shard's file (\(format))")) }
    let fields = TallyText(text)
    func word(_ key: String) -> String? { fields.fields(key).flatMap { $0.count == 1 ? String($0[0]) : nil } }
    guard let scenario = word("scenario"), let hash = word("scenarioHash"),
      let seed = word("seed").flatMap(UInt64.init),
      let version = word("version"), let shard = fields.integers("shard"), shard.count == 2,
      let parts = fields.integers("parts"), parts.count == 3, parts[0] <= parts[1], parts[1] <= parts[2],
      let writes = fields.integer("partWrites"), let activities = fields.integer("partActivities"),
      let end = fields.integer("endTime"), let limit = fields.integer("eventLimit"),
      let prints = fields.fields("fingerprints")
    else { return .failure(Problem("malformed header")) }
    var fingerprints: [TrajectoryFingerprint] = []
    for print in prints {
      guard let value = UInt64(print, radix: 16) else { return .failure(Problem("malformed fingerprint \(print)")) }
      fingerprints.append(TrajectoryFingerprint(value: value))
    }
    guard fingerprints.count == Int(parts[1] - parts[0]) else {
      return .failure(Problem("\(fingerprints.count) fingerprints for \(parts[1] - parts[0]) parts"))
    }
    guard let tally = SummaryTally(text: fields) else { return .failure(Problem("malformed tally")) }
    return .success(
      RunShardFile(
        scenario: scenario, scenarioHash: hash, seed: seed, version: version,
        shard: RunShard(index: Int(shard[0]), count: Int(shard[1])), parts: Int(parts[0])..<Int(parts[1]),
        partCount: Int(parts[2]), writes: Int(writes), activities: Int(activities),
        endTime: SimTime(nanoseconds: end), stoppedAtEventLimit: limit == 1, fingerprints: fingerprints,
        tally: tally))
  }
}
