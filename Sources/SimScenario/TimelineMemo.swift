import SimMetrics
import SimModel

/// A sweep's timeline decoded once for all the points that cannot change it.
///
/// `validate` decodes each point of a scenario's sweep; with 20,000 timeline entries a decode
/// took 0.15 s, nearly all of it the timeline, and 100 points 17 s (issue 71). A factor under a
/// key the timeline's decoding never reads (directly, or through the spec before it) leaves every
/// point's timeline as the first such point's: its actions and problems are kept and replayed.
final class TimelineMemo {
  /// Top-level keys the timeline's decoding does not read: `workloads` and `usage` set only each
  /// device's `workload` and `usage`, which no timeline action's decoder looks at; `seed` sets
  /// only the spec's seed; the rest are decoded after the timeline.
  static let independentKeys: Set<String> = [  // membership only
    "workloads", "usage", "seed", "expect", "watch", "outputs", "name", "description", "sampleInterval", "tolerances",
  ]

  /// Whether a point whose factors have these paths may share the memo.
  static func applies(to factors: [SweepPlan.Factor]) -> Bool {
    factors.allSatisfy { factor in
      if case .key(let name)? = factor.steps.first { return independentKeys.contains(name) }
      return false
    }
  }

  /// The actions the timeline appended, its watched edits and the problems it reported, once
  /// recorded.
  var recorded: (actions: [TimelineAction], watches: [WriteWatch], problems: [ScenarioProblem])?
  /// Set when the timeline named logical keys: their numbers depend on the order of first
  /// appearance across sections, so its decode is not reused.
  var ineligible = false
}
