import Foundation
import SimKernel
import SimModel
import SimScenario

/// Counts observations without keeping them: the cheapest observer, for speed measurements.
final class ObservationCounter: ObservationSink, @unchecked Sendable {
  var count = 0
  func observe(_ observation: Observation) { count += 1 }
}

/// `syncsim bench fleet`: many accounts of two devices on the private database, Poisson edits.
enum FleetBenchmark {
  static func command(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    let accounts = try Int(args.option("accounts") ?? "1000")
    let hours = try Int64(args.option("hours") ?? "24")
    let editsPerHour = try Double(args.option("edits-per-hour") ?? "6")
    let rounds = try Int(args.option("rounds") ?? "1")
    let jobs = try Int(args.option("jobs") ?? String(PartitionedRunner.defaultJobs))
    let batchDevices = try Int(args.option("batch-devices") ?? String(PartitionedRunner.defaultBatchDevices))
    let oneKernel = args.flag("one-kernel")
    _ = try args.positionals()
    guard let accounts, accounts > 0, accounts <= 1_000_000 else { throw UsageError("--accounts must be 1…1000000") }
    guard let hours, hours > 0, hours <= 24 * 365 else { throw UsageError("--hours must be 1…8760") }
    // The scenario format's limit (100 edits a second); an infinite rate (1e309) never ended.
    guard let editsPerHour, editsPerHour > 0, editsPerHour <= 360_000 else {
      throw UsageError("--edits-per-hour must be above 0 and at most 360000 (100 per second)")
    }
    guard let rounds, rounds > 0, rounds <= 100 else { throw UsageError("--rounds must be 1…100") }
    guard let jobs, jobs >= 1, jobs <= 1024 else { throw UsageError("--jobs must be 1…1024") }
    guard let batchDevices, batchDevices >= 1 else { throw UsageError("--batch-devices must be at least 1") }
    let spec = fleet(accounts: accounts, hours: hours, editsPerHour: editsPerHour)
    let partitioning = oneKernel ? WorldPartitioning(whole: spec) : WorldPartitioning(spec)
    let baseline = peakResidentBytes()
    var rates: [Double] = []
    var seconds: [Double] = []
    var outcome: RunOutcome?
    var observations = 0
    for _ in 0..<rounds {
      let clock = ContinuousClock()
      let start = clock.now
      let totals = FleetTotals()
      PartitionedRunner.run(spec, partitioning: partitioning, jobs: jobs, batchDevices: batchDevices) { _, part in
        let counter = ObservationCounter()
        return (WorldRunner.run(part, sink: counter), counter.count)
      } consume: { _, part in
        totals.add(part.0, observations: part.1)
      }
      let result = totals.outcome!
      let elapsed = start.duration(to: clock.now).secondsValue
      if let first = outcome, first.fingerprint != result.fingerprint || first.processedEvents != result.processedEvents
      {
        console.error(
          "error: round \(rates.count + 1) processed other events than round 1 (fingerprint \(result.fingerprint.hex), not \(first.fingerprint.hex)): the run is not deterministic"
        )
        return .failure
      }
      outcome = result
      observations = totals.observations
      seconds.append(elapsed)
      rates.append(Double(result.processedEvents) / elapsed)
    }
    guard let outcome else { return .failure }
    let peak = peakResidentBytes()
    let medianRate = median(rates)
    console.print(
      "fleet: \(accounts) accounts × 2 devices, private database, \(editsPerHour) edits/h per device, \(hours) h simulated"
    )
    console.print(
      "parts             \(partitioning.count) (each its own kernel), \(jobs) job\(jobs == 1 ? "" : "s"), batches of \(batchDevices) devices"
    )
    console.print("events            \(outcome.processedEvents)")
    console.print("observations      \(observations)")
    console.print("wall time         " + String(format: "%.3f s", median(seconds)))
    console.print("events/s          " + String(format: "%.0f", medianRate))
    if rounds > 1 {
      console.print(
        "rounds            \(rounds): min " + String(format: "%.0f", rates.min() ?? 0) + ", median "
          + String(format: "%.0f", medianRate) + ", max " + String(format: "%.0f", rates.max() ?? 0)
          + " events/s")
    }
    console.print(
      "peak RSS          "
        + String(format: "%.1f MiB (%.1f MiB before the run)", Double(peak) / 1_048_576, Double(baseline) / 1_048_576))
    let scope = partitioning.count > 1 ? " (largest part)" : ""
    console.print(
      "state per device  \(outcome.memory.perDeviceBytes) B (records excluded), of which "
        + "\(outcome.memory.runHistoryBytesPerDevice) B the rate limiter's run history\(scope)")
    console.print(
      "records           " + String(format: "%.3f MiB", Double(outcome.memory.recordBytes) / 1_048_576) + scope
        + ", \(outcome.memory.recordBytesPerObject) B per record the server holds")
    console.print(
      "activity table    " + String(format: "%.3f MiB", Double(outcome.memory.activityBytes) / 1_048_576) + scope)
    console.print("converged         \(outcome.converged)   trajectory fingerprint \(outcome.fingerprint.hex)")
    return .success
  }

  /// The middle value, or the mean of the two middle ones. - Precondition: not empty.
  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  static func fleet(accounts: Int, hours: Int64, editsPerHour: Double) -> WorldSpec {
    var spec = WorldSpec()
    spec.duration = .hours(hours)
    spec.accountCount = accounts
    for account in 0..<accounts {
      for index in 0..<2 {
        var device = DeviceSpec(name: "a\(account)d\(index)", account: account)
        device.workload = Workload(editsPerHour: editsPerHour)
        spec.devices.append(device)
      }
    }
    return spec
  }

  /// The process's peak resident set (VmHWM on Linux), in bytes; 0 where unknown.
  static func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let digits = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
      return digits * 1024
    }
    return 0
  }
}

/// The fleet's parts added up in part order (`OutcomeTotal`), and their observations counted.
final class FleetTotals: @unchecked Sendable {
  private var outcomes = OutcomeTotal()
  var observations = 0

  var outcome: RunOutcome? { outcomes.outcome }

  func add(_ part: RunOutcome, observations: Int) {
    self.observations += observations
    outcomes.add(part)
  }
}
