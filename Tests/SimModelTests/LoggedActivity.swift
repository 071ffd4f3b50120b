import SimMetrics

/// An activity as the decision log kept it, with the intervals a policy blocked it: the recorder
/// keeps those apart from the record (`MetricsRecorder.blocked(of:)`), and the scheduler's tests
/// read them together.
@dynamicMemberLookup
struct LoggedActivity {
  let record: MetricsRecorder.ActivityRecord
  let blocked: [MetricsRecorder.BlockedInterval]

  subscript<Value>(dynamicMember keyPath: KeyPath<MetricsRecorder.ActivityRecord, Value>) -> Value {
    record[keyPath: keyPath]
  }
}

extension MetricsRecorder {
  /// Every activity with its blocked intervals, in id order.
  var loggedActivities: [LoggedActivity] {
    activities.indices.map { LoggedActivity(record: activities[$0], blocked: blocked(of: $0)) }
  }
}
