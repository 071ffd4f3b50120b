import Foundation
import SimKernel
import SimScenario
import SimTwin

/// `syncsim fit LOG... --scenario BASE.json [--out DIR]`: a twin of an app fitted to its logs.
struct FitCommand {
  static let usage = """
    usage: syncsim fit LOG... --scenario BASE.json [--out DIR] [--holdout R] [--particles N]
                       [--generations N] [--max-worlds N] [--seed N] [--jobs N]
                       [--regression-adjust] [--early-share S] [--clock-offset DEVICE=SECONDS]...
                       [--date YYYY-MM-DD] [--utc-offset +HHMM] [--assumptions]

    Fits a twin of your app to its sync logs (docs/event-log.md): BASE.json says what you
    know (devices named as in the log, stores, settings); the log's saves, app states and
    power are replayed, and the parameters the log can identify are fitted by ABC-SMC
    on its summaries. The last part of the log is held back and predicted.

    Writes into DIR (default Results/fit-NAME): twin.json (a scenario: run, sweep and
    compare it), fit.csv (each parameter: prior, estimate, 90 % interval, identified or
    not), summaries.csv (observed and the twin's, fitted and held back), generations.csv,
    posterior.csv and report.html. Exits 65 when the log identifies nothing.

      --scenario F     the base scenario (required)
      --holdout R      the share of the log's time held back, 0 to 0.9 (default 0.3)
      --particles N    particles per generation (default 100)
      --generations N  most refinements after the first draw (default 12)
      --max-worlds N   stop refining after this many worlds (default 5000)
      --seed N         the fit's seed (default 1); the same inputs and seed give the same files
      --jobs N         threads (default: the cores); the files are the same for any N
      --regression-adjust
                       correct the final particles by local-linear regression on the
                       summaries that inform each parameter (Beaumont 2002): narrower
                       intervals, too narrow in calibration (docs/event-log.md)
      --early-share S  from the second generation, run each world until this share of
                       the part fitted's events is logged, and stop most of those farther
                       from the log there than every kept world was (lazy ABC: the few run
                       on weigh more, so the posterior is the same in expectation); 0.3
                       made the quickstart's week 1.4x faster; off by default (0), as it
                       calibrates worse (docs/event-log.md)
      --assumptions    after the fit, run the twin's parameters one at a time (the identified
                       ones over their 90 % intervals, the [assumed] ones over their ranges)
                       and say which of each latency's five most influential the log
                       identified and which it left assumed, here and in report.html
                       (docs/sensitivity.md)
      --clock-offset DEVICE=SECONDS
                       DEVICE's clock was behind the others' by SECONDS (negative: ahead):
                       its events are moved by as much before the fit (repeatable)
      --date, --utc-offset, LOG=DEVICE
                       as for trace (syncsim trace --help)
    """

  /// `--early-share S`, 0 to 0.9, when given.
  static func earlyShare(_ args: inout ArgumentList) throws(UsageError) -> Double? {
    guard let text = try args.option("early-share") else { return nil }
    guard let value = Double(text), value >= 0, value <= 0.9 else {
      throw UsageError("--early-share must be 0 (every world run whole) to 0.9")
    }
    return value
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    guard let scenarioFile = try args.option("scenario") else { throw UsageError("fit needs --scenario BASE.json") }
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.folder(path, option: "--out") }
    var options = TwinFit.Options()
    options.jobs = ProcessInfo.processInfo.activeProcessorCount
    options.regressionAdjustment = args.flag("regression-adjust")
    let assumptions = args.flag("assumptions")
    var holdout = 0.3
    if let text = try args.option("holdout") {
      guard let value = Double(text), value >= 0, value <= 0.9 else { throw UsageError("--holdout must be 0 to 0.9") }
      holdout = value
    }
    if let value = try ArgumentList.integer(args.option("particles"), option: "particles", in: 20...100_000) {
      options.particles = value
    }
    if let value = try ArgumentList.integer(args.option("generations"), option: "generations", in: 0...50) {
      options.generations = value
    }
    if let value = try ArgumentList.integer(args.option("max-worlds"), option: "max-worlds", in: 100...10_000_000) {
      options.maxWorlds = value
    }
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else { throw UsageError("--seed must be a whole number from 0") }
      options.seed = value
    }
    if let value = try ArgumentList.integer(args.option("jobs"), option: "jobs", in: 1...1024) { options.jobs = value }
    if let share = try Self.earlyShare(&args) { options.earlyShare = share }
    let offsets = try LogInput.offsets(&args)
    let (paths, named) = try LogInput.files(try args.positionals(), options: try LogInput.options(&args))
    guard !paths.isEmpty else { throw UsageError("fit needs at least one log file") }
    guard let bytes = FileManager.default.contents(atPath: scenarioFile).map({ [UInt8]($0) }) else {
      console.error("error: \(scenarioFile): cannot read the base scenario")
      return .dataError
    }
    guard let log = LogInput.read(paths, options: named, offsets: offsets, console: console) else { return .dataError }
    let clock = ContinuousClock()
    let started = clock.now
    let result = TwinFitRun.run(
      log: log, base: bytes, file: scenarioFile, holdout: holdout, options: options,
      progress: { generation, worlds in
        // On a terminal one line redrawn; elsewhere (CI) a line a generation, so a long fit is not silent.
        if console.errIsTerminal {
          console.errorRaw("\rfit: generation \(generation), \(worlds) worlds\u{1B}[K")
        } else {
          console.error("fit: generation \(generation), \(worlds) worlds")
        }
      })
    if console.errIsTerminal { console.errorRaw("\r\u{1B}[K") }
    var fitted: TwinFitRun
    switch result {
    case .failure(let failure):
      for problem in failure.problems { console.error("error: \(problem)") }
      return .dataError
    case .success(let run): fitted = run
    }
    let wall = started.duration(to: clock.now).secondsValue
    if assumptions { fitted.assumptions = AssumptionBand.fitLines(fitted, jobs: options.jobs) }
    let directory = out ?? "Results/fit-\(fitted.baseName)"
    do {
      try ResultSetWriter.write(TwinFitFiles(fitted).files.map { ResultFile(name: $0.name, text: $0.text) }, to: directory, kind: .fit)
    } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    for note in fitted.notes { console.print("note         \(ScenarioProblem.printable(note))") }
    printEstimate(fitted, console: console)
    console.print(
      "fit          \(fitted.posterior.worlds) worlds (\(fitted.posterior.stoppedEarly) stopped early as hopeless) in "
        + "\(String(format: "%.1f", wall)) s (\(Int(Double(fitted.posterior.worlds) / max(wall, 1e-6))) worlds/s, "
        + "\(options.jobs) threads)")
    for line in fitted.assumptions { console.print(line) }
    console.print("results      \(directory)/")
    return .success
  }

  /// Each parameter with its unit, the sums and the measured values, the misfits, and the
  /// held-back part's verdict with each summary's error and what was left out.
  static func printEstimate(_ fitted: TwinFitRun, console: Console) {
    let width = 36
    func row(_ name: String, _ text: String) {
      console.print(name.padding(toLength: max(width, name.count + 1), withPad: " ", startingAt: 0) + text)
    }
    for p in fitted.estimate.parameters {
      let parameter = p.parameter
      let base = parameter.text(parameter.current(in: fitted.fit.spec))
      row(
        parameter.path,
        p.identified
          ? "\(parameter.text(p.estimate)) [\(parameter.text(p.low)), \(parameter.text(p.high))]"
          : "not identified: \(p.note) (the base's \(base) kept)")
    }
    for sum in fitted.estimate.sums {
      row(
        sum.name,
        sum.identified
          ? "\(DurationText.display(seconds: sum.estimate)) [\(DurationText.display(seconds: sum.low)), \(DurationText.display(seconds: sum.high))] (identified as a sum)"
          : "not identified: \(sum.note)")
    }
    if let retry = fitted.measurement.retryAfter, let path = fitted.measurement.retryAfterPath {
      row(
        path,
        "measured: median \(DurationText.display(seconds: retry.median)), spread ×\(TwinParameter.decimal(DeterministicMath.exp(1.2816 * retry.sigma), digits: 3)) "
          + "(p90/p50), from \(retry.count) \(retry.from)")
    }
    for misfit in fitted.estimate.misfits { console.print("misfit       \(misfit.sentence)") }
    let (covered, judged) = fitted.estimate.coverage(part: "holdout")
    guard judged > 0 else {
      console.print("held back    nothing to judge (--holdout 0, or the held-back part has too few observations)")
      return
    }
    console.print(
      "held back    \(covered) of \(judged) summaries inside the twin's 90 % interval "
        + "(\(Int((Double(covered) / Double(judged) * 100).rounded())) %)")
    let held = fitted.estimate.summaries.filter { $0.part == "holdout" }
    let errors = held.compactMap { s -> String? in
      guard let error = s.medianError, let covered = s.covered else { return nil }
      let share = LogSummaries.definitions[LogSummaries.index(s.name)].isShare
      let text = share ? String(format: "%+.2f", error) : String(format: "%+.0f %%", error * 100)
      return "\(s.name) \(text)\(covered ? "" : " (outside)")"
    }
    if !errors.isEmpty { console.print("             median error: \(errors.joined(separator: ", "))") }
    let left = held.compactMap { s -> String? in
      guard s.observed == nil else { return nil }
      return s.count == 0 ? nil : "\(s.name) (\(s.count) observations, fewer than \(LogSummaries.minimumCount))"
    }
    if !left.isEmpty { console.print("             left out: \(left.joined(separator: ", "))") }
    let absent = held.filter { $0.observed == nil && $0.count == 0 }.map(\.name)
    if !absent.isEmpty { console.print("             not in the held-back part: \(absent.joined(separator: ", "))") }
    let wide = held.compactMap { s -> String? in
      guard s.observed != nil, let low = s.twinLow, let high = s.twinHigh,
        !LogSummaries.definitions[LogSummaries.index(s.name)].isShare, low > 0, high / low > 10
      else { return nil }
      return s.name
    }
    if !wide.isEmpty {
      console.print("             uninformative (the twin's band spans over 10×): \(wide.joined(separator: ", "))")
    }
  }
}
