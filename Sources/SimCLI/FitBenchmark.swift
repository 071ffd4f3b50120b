import Foundation
import SimKernel
import SimScenario
import SimTwin

/// `syncsim bench fit` and `bench sbc`: the twin's fit on a simulated app whose parameters are
/// known, its speed, and its calibration over draws from the prior. Figures go to the terminal.
enum FitBenchmark {
  static let quickstart = "Scenarios/quickstart.json"

  /// The scenario file's bytes, with its duration replaced when `hours` is given.
  static func base(_ file: String, hours: Double?) throws(UsageError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: file),
      var node = try? JSONParser.parse([UInt8](data))
    else { throw UsageError("cannot read \(file) (run from the repository, or pass --scenario)") }
    if let hours, case .success(let updated) = node.setting(
      JSONNode(value: .string("\(hours)h"), line: 0, column: 0), at: [.key("duration")][...])
    {
      node = updated
    }
    return Array(node.serialized().utf8)
  }

  /// The log a run of `bytes` leaves, written in SyncSim's event-log format and read back (as an
  /// app's would be), with the run's true parameter values.
  static func log(_ bytes: [UInt8], file: String, seed: UInt64?, units: [Double]? = nil) throws -> (SyncLog, [String: Double]) {
    let scenario = try ScenarioDecoder.decode(bytes, file: file, checkingSweep: false).0
    var spec = scenario.spec
    let names = scenario.deviceNames
    if let seed { spec.seed = seed }
    let parameters = TwinParameter.all
    if let units {
      for (index, parameter) in parameters.enumerated() {
        parameter.apply(parameter.value(atUnit: units[index]), sigma: parameter.sigma(in: spec), to: &spec)
      }
    }
    // By key: a fit adds the throttle the log shows to the parameters it searches.
    var truth: [String: Double] = [:]  // lookup only
    for parameter in parameters + [TwinParameter.deviceThrottle, TwinParameter.containerThrottle] {
      truth[parameter.path] = parameter.current(in: spec)
    }
    let simulated = SimulatedLog.run(spec, names: names)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-bench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/event-log.ndjson"
    try EventLogWriter.eventLog(simulated.events, devices: simulated.devices).write(
      toFile: path, atomically: true, encoding: .utf8)
    return (try SyncLogReader.read([path]), truth)
  }

  /// The bulk importer's twin, fitted beside the quickstart by default: its log is large and
  /// refused, the shape a fit is slowest on (issue 78, item 6).
  static let bulk = "Scenarios/twins/bulk-importer.json"

  static func fit(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    let file = try args.option("scenario")
    let days = try args.option("days").map { text throws(UsageError) in
      guard let value = Double(text), value > 0, value <= 60 else { throw UsageError("--days must be above 0, at most 60") }
      return value
    }
    let jobs =
      try ArgumentList.integer(args.option("jobs"), option: "jobs", in: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
    let earlyShare = try FitCommand.earlyShare(&args)
    _ = try args.positionals()
    // By default the quickstart's week and the bulk importer's day; a file given runs alone.
    let runs: [(file: String, days: Double?)] =
      file.map { [($0, days ?? ($0 == quickstart ? 7 : nil))] } ?? [(quickstart, days ?? 7), (bulk, days ?? 1)]
    var code = ExitCode.success
    for (index, run) in runs.enumerated() {
      if index > 0 { console.print("") }
      let result = try fit(run.file, days: run.days, jobs: jobs, earlyShare: earlyShare, console: console)
      if result != .success { code = result }
    }
    return code
  }

  /// One file's fit: its log simulated, fitted, and each parameter's truth beside its estimate.
  static func fit(_ file: String, days: Double?, jobs: Int, earlyShare: Double?, console: Console) throws(UsageError)
    -> ExitCode
  {
    let bytes = try base(file, hours: days.map { $0 * 24 })
    let (log, truth): (SyncLog, [String: Double])
    do { (log, truth) = try Self.log(bytes, file: file, seed: nil) } catch {
      console.error("error: \(error)")
      return .dataError
    }
    var options = TwinFit.Options()
    options.jobs = jobs
    if let earlyShare { options.earlyShare = earlyShare }
    let clock = ContinuousClock()
    let started = clock.now
    let result = TwinFitRun.run(log: log, base: bytes, file: file, holdout: 0.3, options: options)
    let wall = started.duration(to: clock.now).secondsValue
    guard case .success(let run) = result else {
      if case .failure(let failure) = result { for problem in failure.problems { console.error("error: \(problem)") } }
      return .dataError
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    console.print(
      "fit of \(file): \(log.devices.count) devices, \(log.events.count) events over "
        + "\(DurationText.display(seconds: Double(run.end - run.start) / 1e6)); \(cores) cores, \(jobs) threads")
    console.print("parameter                    truth       estimate    90 % interval            identified  inside")
    for p in run.estimate.parameters {
      let trueValue = truth[p.parameter.path] ?? 0
      let inside = trueValue >= p.low * (1 - 1e-9) && trueValue <= p.high * (1 + 1e-9)
      console.print(
        p.parameter.path.padding(toLength: 28, withPad: " ", startingAt: 0) + " "
          + TwinParameter.decimal(trueValue, digits: 3).padding(toLength: 11, withPad: " ", startingAt: 0) + " "
          + TwinParameter.decimal(p.estimate, digits: 3).padding(toLength: 11, withPad: " ", startingAt: 0) + " "
          + "[\(TwinParameter.decimal(p.low, digits: 3)), \(TwinParameter.decimal(p.high, digits: 3))]"
          .padding(toLength: 24, withPad: " ", startingAt: 0) + " " + (p.identified ? "yes" : "no ").padding(
            toLength: 11, withPad: " ", startingAt: 0) + " " + (inside ? "yes" : "NO"))
    }
    let (covered, judged) = run.estimate.coverage(part: "holdout")
    console.print("held back    \(covered) of \(judged) summaries inside the twin's 90 % interval")
    let errors = run.estimate.summaries.filter { $0.part == "holdout" }.compactMap { s in
      s.medianError.map { "\(s.name) \(String(format: "%+.0f", $0 * 100)) %" }
    }
    console.print("median error \(errors.joined(separator: ", "))")
    console.print(
      "speed        \(run.posterior.worlds) worlds (\(run.posterior.stoppedEarly) stopped early) + "
        + "\(2 * options.predictiveDraws) predictive in "
        + "\(String(format: "%.1f", wall)) s: \(Int(Double(run.posterior.worlds + 2 * options.predictiveDraws) / wall)) worlds/s")
    return .success
  }

  /// Simulation-based calibration (Talts et al. 2018): parameters drawn from the prior, their
  /// log simulated, the fit run, and each true value's rank among posterior draws counted; a
  /// calibrated fit gives uniform ranks (χ² test at 1 %).
  static func sbc(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    let file = try args.option("scenario") ?? quickstart
    // Bad numbers are refused: they were read as absent, and the defaults ran instead.
    let draws = try ArgumentList.integer(args.option("draws"), option: "draws", in: 10...10_000) ?? 50
    let hours = try args.option("hours").map { text throws(UsageError) in
      guard let value = Double(text), value > 0, value <= 24 * 60 else { throw UsageError("--hours must be above 0, at most 1440") }
      return value
    } ?? 12
    // The fit's own defaults: calibration is judged at the settings `fit` runs with.
    let defaults = TwinFit.Options()
    let particles =
      try ArgumentList.integer(args.option("particles"), option: "particles", in: 20...100_000) ?? defaults.particles
    let maxWorlds =
      try ArgumentList.integer(args.option("max-worlds"), option: "max-worlds", in: 100...10_000_000)
      ?? defaults.maxWorlds
    let jobs =
      try ArgumentList.integer(args.option("jobs"), option: "jobs", in: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
    let adjust = args.flag("regression-adjust")
    let earlyShare = try FitCommand.earlyShare(&args)
    _ = try args.positionals()
    let bytes = try base(file, hours: hours)
    let parameters = TwinParameter.all
    let bins = 10
    var ranks = Array(repeating: Array(repeating: 0, count: bins), count: parameters.count)
    var inside = Array(repeating: 0, count: parameters.count)
    var identified = Array(repeating: 0, count: parameters.count)
    var random = RandomStream(seed: 2026, name: "sbc")
    let clock = ContinuousClock()
    let started = clock.now
    var worlds = 0
    for draw in 0..<draws {
      let units = parameters.map { _ in random.nextUnit() }
      let (log, truthByPath): (SyncLog, [String: Double])
      do { (log, truthByPath) = try Self.log(bytes, file: file, seed: UInt64(draw + 1), units: units) } catch {
        console.error("error: \(error)")
        return .dataError
      }
      var options = TwinFit.Options()
      options.jobs = jobs
      options.particles = particles
      options.maxWorlds = maxWorlds
      if let earlyShare { options.earlyShare = earlyShare }
      options.seed = UInt64(draw + 1)
      options.predictiveDraws = 0
      options.regressionAdjustment = adjust
      guard
        case .success(let run) = TwinFitRun.run(
          log: log, base: bytes, file: file, holdout: 0, options: options, parameters: parameters)
      else { continue }
      let truth = parameters.map { truthByPath[$0.path] ?? 0 }
      worlds += run.posterior.worlds
      // Ranks among bins - 1 draws from the posterior (resampled by weight).
      var pick = RandomStream(seed: UInt64(draw), name: "sbc.rank")
      let particlesDrawn = (0..<(bins - 1)).map { _ in
        TwinFit.pick(run.posterior.particles, target: pick.nextUnit())
      }
      for (index, parameter) in parameters.enumerated() {
        let trueUnit = parameter.unit(of: truth[index])
        ranks[index][particlesDrawn.filter { $0.units[index] < trueUnit }.count] += 1
        let estimate = run.estimate.parameters[index]
        if truth[index] >= estimate.low * (1 - 1e-9) && truth[index] <= estimate.high * (1 + 1e-9) { inside[index] += 1 }
        if estimate.identified { identified[index] += 1 }
      }
      if console.errIsTerminal { console.errorRaw("\rsbc: \(draw + 1)/\(draws)\u{1B}[K") }
    }
    if console.errIsTerminal { console.errorRaw("\r\u{1B}[K") }
    let wall = started.duration(to: clock.now).secondsValue
    // χ² with 9 degrees of freedom: 21.666 at 1 %.
    let critical = 21.666
    console.print(
      "SBC over \(draws) draws from the prior (\(file), \(hours) h, \(particles) particles, at most \(maxWorlds) worlds "
        + "a fit\(adjust ? ", regression-adjusted" : ""); ranks among 9 posterior draws, 10 bins; χ² critical 21.67 at 1 %)")
    console.print("parameter                    χ²      uniform  in 90 % interval  identified  ranks")
    for (index, parameter) in parameters.enumerated() {
      let expected = Double(draws) / Double(bins)
      let chi = ranks[index].reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
      console.print(
        parameter.path.padding(toLength: 28, withPad: " ", startingAt: 0) + " "
          + String(format: "%-7.2f", chi) + " " + (chi <= critical ? "yes" : "NO ").padding(toLength: 8, withPad: " ", startingAt: 0)
          + " " + "\(inside[index])/\(draws)".padding(toLength: 17, withPad: " ", startingAt: 0) + " "
          + "\(identified[index])/\(draws)".padding(toLength: 11, withPad: " ", startingAt: 0) + " "
          + ranks[index].map(String.init).joined(separator: " "))
    }
    console.print("speed        \(worlds) worlds in \(String(format: "%.1f", wall)) s (\(Int(Double(worlds) / wall)) worlds/s)")
    return .success
  }
}
