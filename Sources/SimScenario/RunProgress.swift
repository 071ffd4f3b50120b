import SimKernel
import SimMetrics
import SimModel

/// How far a run of independent parts has got: the parts finished, added up as the run adds
/// them (tally, fingerprints, outcome, id offsets, causes), so that a shard of a run killed
/// mid-run can go on from its last checkpoint and end byte for byte as if it had not stopped
/// (`ScenarioRunner.run(resume:checkpoint:)`).
///
/// As text (`text`, `init(text:)`), every sum exact: the tally's lines (`SummaryTally.text`, as
/// `run-shard.txt` keeps them) and `progress.*` lines for the rest.
public struct RunProgress: Sendable {
  /// The run's parts finished, counted from its first (a shard's first part is its own).
  public var partsDone: Int
  /// The parts the run has in all (a shard's), and the world's (for `syncsim status`).
  public var partsInRun: Int
  public var partsInWorld: Int
  /// The writes and activities those parts made (the next part's ids follow them).
  public var writes: Int32
  public var activities: Int32
  /// Each finished part's fingerprint, in part order.
  public var fingerprints: [TrajectoryFingerprint]
  /// The finished parts' outcome, added up; its memory is not kept (a resumed run reports the
  /// largest of the parts it ran itself).
  public var outcome: RunOutcome
  /// The parts' trajectories folded (`OutcomeTotal`).
  public var trajectories: FingerprintFold
  /// The parts' cause totals, where their recorders were let go.
  public var causes: [(name: String, nanoseconds: Int128)]?
  public var tally: SummaryTally

  /// The progress's lines.
  public var text: String {
    let fold = trajectories.state
    let limit: Int = if case .reachedEventLimit(let limit) = outcome.stopReason { limit } else { -1 }
    var lines = [
      "progress.parts \(partsDone) \(partsInRun) \(partsInWorld)", "progress.ids \(writes) \(activities)",
      "progress.fingerprints " + fingerprints.map { String($0.value, radix: 16) }.joined(separator: " "),
      "progress.outcome \(outcome.processedEvents) \(outcome.converged ? 1 : 0) \(outcome.endTime.nanoseconds) \(limit)",
      "progress.trajectories \(String(fold.folded, radix: 16)) \(String(fold.first, radix: 16)) \(fold.count)",
    ]
    if let causes {
      // Cause and policy names are words (no spaces); the line pairs each with its sum.
      lines.append("progress.causes " + causes.map { "\($0.name) \($0.nanoseconds)" }.joined(separator: " "))
    }
    return lines.joined(separator: "\n") + "\n" + tally.text
  }

  /// The progress `text` wrote; nil when a line is missing, malformed or out of range.
  public init?(text: TallyText) {
    guard let counts = text.integers("progress.parts"), counts.count == 3, counts[0] >= 1,
      counts[0] <= counts[1], counts[1] <= counts[2], counts[2] <= Int64(Int32.max),
      let ids = text.integers("progress.ids"), ids.count == 2, ids.allSatisfy({ $0 >= 0 && $0 <= Int64(Int32.max) }),
      let prints = text.fields("progress.fingerprints"), prints.count == Int(counts[0]),
      let outcome = text.integers("progress.outcome"), outcome.count == 4, outcome[0] >= 0,
      outcome[1] == 0 || outcome[1] == 1, outcome[2] >= 0, outcome[3] >= -1,
      let fold = text.fields("progress.trajectories"), fold.count == 3,
      let folded = UInt64(fold[0], radix: 16), let first = UInt64(fold[1], radix: 16), let count = Int(fold[2]),
      count == Int(counts[0]), let tally = SummaryTally(text: text)
    else { return nil }
    var fingerprints: [TrajectoryFingerprint] = []
    for print in prints {
      guard let value = UInt64(print, radix: 16) else { return nil }
      fingerprints.append(TrajectoryFingerprint(value: value))
    }
    var causes: [(name: String, nanoseconds: Int128)]?
    if let fields = text.fields("progress.causes") {
      guard fields.count % 2 == 0 else { return nil }
      causes = []
      for index in stride(from: 0, to: fields.count, by: 2) {
        guard let nanoseconds = Int128(String(fields[index + 1])), nanoseconds >= 0 else { return nil }
        causes!.append((String(fields[index]), nanoseconds))
      }
    }
    self.partsDone = Int(counts[0])
    self.partsInRun = Int(counts[1])
    self.partsInWorld = Int(counts[2])
    self.writes = Int32(ids[0])
    self.activities = Int32(ids[1])
    self.fingerprints = fingerprints
    self.trajectories = FingerprintFold(state: (folded, first, count))
    self.outcome = RunOutcome(
      stopReason: outcome[3] >= 0 ? .reachedEventLimit(Int(outcome[3])) : .drained,
      endTime: SimTime(nanoseconds: outcome[2]), processedEvents: Int(outcome[0]), converged: outcome[1] == 1,
      fingerprint: trajectories.value)
    self.causes = causes
    self.tally = tally
  }

  init(
    partsDone: Int, partsInRun: Int, partsInWorld: Int, writes: Int32, activities: Int32,
    fingerprints: [TrajectoryFingerprint], outcome: RunOutcome,
    trajectories: FingerprintFold, causes: [(name: String, nanoseconds: Int128)]?, tally: SummaryTally
  ) {
    self.partsDone = partsDone
    self.partsInRun = partsInRun
    self.partsInWorld = partsInWorld
    self.writes = writes
    self.activities = activities
    self.fingerprints = fingerprints
    self.outcome = outcome
    self.trajectories = trajectories
    self.causes = causes
    self.tally = tally
  }
}
