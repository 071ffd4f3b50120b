import SimKernel
import SimMetrics
import SimModel

/// Small worlds for tests, built in Swift.
enum TestWorlds {
  /// `count` devices of one account on the private database, all in the foreground.
  static func privatePair(count: Int = 2, editsPerHour: Double = 0, hours: Int64 = 1, seed: UInt64 = 1) -> WorldSpec {
    var spec = WorldSpec()
    spec.seed = seed
    spec.duration = .hours(hours)
    spec.devices = (0..<count).map { index in
      var device = DeviceSpec(name: "device\(index)")
      if editsPerHour > 0 {
        var workload = Workload(editsPerHour: editsPerHour)
        workload.insertShare = 0.3
        device.workload = workload
      }
      return device
    }
    return spec
  }

  static func run(_ spec: WorldSpec) -> (MetricsRecorder, RunOutcome) {
    let recorder = MetricsRecorder(policyNames: spec.scheduler.policies.map(\.name))
    recorder.initialAppStates = spec.devices.map(\.initialAppState)
    let outcome = WorldRunner.run(spec, sink: recorder)
    return (recorder, outcome)
  }

  static func seconds(_ duration: SimDuration) -> Double { duration.seconds }
}

extension Array where Element == SimDuration {
  /// The nearest-rank percentile (0...1) of the durations.
  func percentile(_ p: Double) -> SimDuration {
    let sorted = self.sorted()
    let rank = Swift.max(0, Swift.min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[rank]
  }
}
