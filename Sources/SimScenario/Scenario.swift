import SimKernel
import SimMetrics
import SimModel

/// A decoded, checked scenario: the world to simulate plus its name, device names and expectations.
public struct Scenario: Sendable {
  /// The highest scenario format version this build reads.
  public static let currentVersion = 1

  public var name: String
  public var description: String
  /// The world, with every field not given at docs/specification.md's default.
  public var spec: WorldSpec
  /// One name per device, in device order (`phone`, or `phone#0`, `phone#1`, … for a group).
  public var deviceNames: [String]
  /// The group each device belongs to.
  public var deviceGroups: [String]
  public var expectations: [Expectation]
  /// The interval at which `timeline.csv` samples device state.
  public var sampleInterval: SimDuration
  /// Per-metric tolerances for comparing with committed results (`syncsim check`).
  public var tolerances: [String: Double]
  /// Which result files to write (all by default; large fleets keep only the summary).
  public var outputs: [String]
  /// The scenario's own sweep, if it declares one (`syncsim sweep`; `run` ignores it).
  public var sweep: SweepPlan?
  /// The app's data model as described (rules, record mapping, schema diff).
  public var dataModel: DataModel
  /// The document as read: the source of `resolved.json` and of `scenarioHash`.
  public var document: JSONNode
  /// When the scenario holds only one shard's devices (`ShardWindow`): which, and where its
  /// parts are in the whole world's.
  public var shardWindow: ShardWindow? = nil
  /// The writes whose arrival the summary reports as `watch.<name>.*`, in name order; their
  /// devices numbered as `spec.devices`.
  public var watches: [WriteWatch] = []

  /// The result files a run can write, in order.
  public static let outputKinds = ["summary", "latency", "activities", "timeline"]
  /// Files written only when `outputs` names them: `objects.csv` (every store's objects at the end).
  public static let optionalOutputs = ["objects"]
}

/// An assertion on a metric of a run.
public struct Expectation: Sendable, Equatable {
  public enum Comparison: String, Sendable {
    case max, min, equals
  }
  public var metric: String
  public var comparison: Comparison
  public var value: Double
  /// Where it was written, for messages.
  public var path: String
}
