import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimReport
import SimScenario

/// `syncsim check [SCENARIO...] [--baseline DIR] [--junit FILE] [--update] [--lenient]`: the CI
/// guard for timing behaviour.
struct CheckCommand {
  static let usage = """
    usage: syncsim check [SCENARIO...] [--baseline DIR] [--junit FILE] [--markdown FILE] [--update] [--lenient]

    Runs the scenarios (default: every Scenarios/*.json; a library name such as quickstart means
    Scenarios/quickstart.json), evaluates their expectations and
    compares each run with its committed results in DIR/<name>/ (default Results/): an equal
    fingerprint and byte-identical files mean unchanged behaviour; otherwise every metric is
    compared, within the scenario's `tolerances`. Any other difference fails, the format of a file
    included, with the command that records the results anew. Prints a line per scenario, then
    `N passed, N failed`, and exits 1 on any failure, 64 on a wrong command line and 73 when a
    report file cannot be written (nothing half-written is left; a link at the path is replaced,
    never followed).

      --baseline DIR   where the committed results are (default Results)
      --junit FILE     also write JUnit XML for CI systems (an invalid scenario is an <error>,
                       a failed check a <failure>; wall time per scenario)
      --markdown FILE  also write a Markdown summary (for a CI job summary, e.g. GitHub Actions'
                       $GITHUB_STEP_SUMMARY; docs/ci.md): a table of scenarios, then what moved
      --update         rewrite the committed results on purpose (expectations still apply)
      --lenient        pass when only the format differs (the same trajectory and metrics) or
                       the trajectory moved with every metric unchanged; said in the line
    """

  struct Outcome {
    var name: String
    var failures: [String]
    var note: String
    /// The scenario could not be read or decoded: an error, not a failed check.
    var isError = false
    /// Wall-clock seconds the check took (for the JUnit report only, never a result file).
    var seconds = 0.0
    /// The run's provenance, for the JUnit report: scenario hash and fingerprint (empty for an error).
    var scenarioHash = ""
    var fingerprint = ""
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let baseline = try args.option("baseline") ?? "Results"
    let junit = try args.option("junit")
    let markdown = try args.option("markdown")
    let update = args.flag("update")
    let lenient = args.flag("lenient")
    var files = try args.positionals().map { resolveLibraryName($0) }
    // A name that is neither a file nor a library scenario is a usage error with a suggestion,
    // not a failed check.
    for file in files where !FileManager.default.fileExists(atPath: file) {
      let bare = file.hasSuffix(".json") ? String(OutputPath.split(file).name.dropLast(5)) : file
      let guess = suggestion(for: bare, among: libraryNames() ?? []).map { " (did you mean \($0)?)" } ?? ""
      throw UsageError("no scenario file or library scenario named \(file)\(guess)")
    }
    if files.isEmpty {
      guard let names = libraryNames() else { throw UsageError("no scenarios given and no Scenarios/ folder here") }
      files = names.map { "Scenarios/" + $0 + ".json" }
    }
    var outcomes: [Outcome] = []
    let clock = ContinuousClock()
    for file in files {
      let started = clock.now
      var outcome = check(file, baseline: baseline, update: update, lenient: lenient)
      outcome.seconds = started.duration(to: clock.now).secondsValue
      outcomes.append(outcome)
      // Names and messages come from files: printable, so none can move the cursor or fake a line.
      if outcome.failures.isEmpty {
        console.print(ScenarioProblem.printable("ok   \(outcome.name) (\(outcome.note))"))
      } else {
        console.print(ScenarioProblem.printable("FAIL \(outcome.name)"))
        for failure in outcome.failures { console.print(ScenarioProblem.printable("     \(failure)")) }
      }
    }
    let failed = outcomes.filter { !$0.failures.isEmpty }.count
    console.print("\(outcomes.count - failed) passed, \(failed) failed")
    for (path, text) in [
      (junit, junit.map { _ in junitXML(outcomes) }), (markdown, markdown.map { _ in markdownSummary(outcomes) }),
    ] {
      guard let path, let text else { continue }
      do {
        // Staged beside the target and renamed over it: a link planted at the path is replaced,
        // never followed, and a full disk leaves the previous file (or none), never half of one.
        let (folder, name) = OutputPath.split(path)
        try ScenarioFile.write([(name, text)], to: folder)
      } catch {
        console.error("error: cannot write \(path): \(OutputPath.describe(error))")
        return .cannotCreate
      }
    }
    return failed == 0 ? .success : .failure
  }

  /// A Markdown summary a CI job page renders: the verdict, a table of every scenario, then each
  /// failure's lines (what moved, by how much, in units) and how to reproduce it.
  static func markdownSummary(_ outcomes: [Outcome]) -> String {
    let failed = outcomes.filter { !$0.failures.isEmpty }
    let cell = MarkdownText.inline
    var out = "## syncsim check: \(outcomes.count - failed.count) passed, \(failed.count) failed\n\n"
    out += "| scenario | result | detail |\n|---|---|---|\n"
    for outcome in outcomes {
      let result = outcome.isError ? "error" : outcome.failures.isEmpty ? "ok" : "**FAIL**"
      let detail = outcome.failures.first ?? outcome.note
      out += "| \(cell(outcome.name)) | \(result) | \(cell(detail)) |\n"
    }
    for outcome in failed {
      out += "\n### \(cell(outcome.name))\n\n"
      for line in outcome.failures {
        out += "- \(line.hasPrefix("reproduce: ") ? MarkdownText.code(String(line.dropFirst(11))) : cell(line))\n"
      }
    }
    return out
  }

  /// `text` as one shell word: kept as it is when it holds only characters no shell treats
  /// specially, single-quoted otherwise (a `'` inside written `'\\''`).
  static func shellQuoted(_ text: String) -> String {
    let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./:=+,@%".unicodeScalars.contains($0))
    }
    return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The library's scenario names (`Scenarios/*.json` but the schema), in file order; nil without a
  /// `Scenarios/` folder here.
  static func libraryNames() -> [String]? {
    guard let files = try? FileManager.default.contentsOfDirectory(atPath: "Scenarios") else { return nil }
    return files.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted().map { String($0.dropLast(5)) }
  }

  /// `quickstart` or `quickstart.json` means `Scenarios/quickstart.json` when no such file is here
  /// and the library has it.
  static func resolveLibraryName(_ argument: String, in directory: String = ".") -> String {
    let manager = FileManager.default
    let path = { (name: String) in directory == "." ? name : directory + "/" + name }
    guard !manager.fileExists(atPath: path(argument)), !argument.contains("/") else { return argument }
    let library = "Scenarios/" + (argument.hasSuffix(".json") ? argument : argument + ".json")
    return manager.fileExists(atPath: path(library)) ? path(library) : argument
  }

  static func check(_ file: String, baseline: String, update: Bool, lenient: Bool = false) -> Outcome {
    let loaded = ScenarioFile.load(file)
    guard let scenario = loaded.scenario else {
      let base = OutputPath.split(file).name
      let name = base.lastIndex(of: ".").map { $0 > base.startIndex ? String(base[..<$0]) : base } ?? base
      return Outcome(name: name, failures: loaded.problems.map(\.description), note: "", isError: true)
    }
    // The audit: every row's stage and cause identities, in every part (issue 34).
    let report = ScenarioRunner.run(scenario, audit: true)
    let reproduce = "reproduce: swift run -c release syncsim run \(shellQuoted(file)) --seed \(report.seed)"
    var failures = report.expectations.filter { !$0.passed }.map {
      "expectation \($0.expectation.path): \($0.description)"
    }
    let produced = report.files(version: SyncSimCommand.version, includeTrace: false)
    let directory = OutputPath.join(baseline, scenario.name)
    var note: String
    if update {
      do {
        try ResultSetWriter.write(produced.map { ResultFile(name: $0.name, text: $0.text) }, to: directory)
        note = "results updated in \(directory)/"
      } catch {
        failures.append("cannot write \(directory): \(OutputPath.describe(error))")
        note = ""
      }
    } else {
      let comparison = compare(
        report, produced: produced, directory: directory, baseline: baseline, lenient: lenient)
      failures += comparison.failures
      note = comparison.note
    }
    if let audit = report.audit {
      failures += audit.failures.map { "causes: " + $0 }
      note += ", \(audit.checks) row identities hold"
    }
    note += ", \(report.expectations.count) expectations met"
    if !failures.isEmpty { failures.append(reproduce) }
    return Outcome(
      name: scenario.name, failures: failures, note: note, scenarioHash: report.scenarioHash,
      fingerprint: report.fingerprint)
  }

  /// Compares a run with the committed results: fingerprint and bytes, then metric by metric.
  static func compare(
    _ report: RunReport, produced: [(name: String, text: String)], directory: String, baseline: String = "Results",
    lenient: Bool = false
  ) -> (failures: [String], note: String) {
    let summaryPath = OutputPath.join(directory, "summary.csv")
    guard let text = try? String(contentsOfFile: summaryPath, encoding: .utf8), let committed = CSVTable.parse(text),
      let row = committed.rows.first
    else {
      // The command that creates them where this check looks: with its --baseline.
      let where_ = baseline == "Results" ? "" : " --baseline \(shellQuoted(baseline))"
      return (
        [
          "no committed results at \(summaryPath) (create them with: syncsim check --update\(where_) "
            + "\(shellQuoted(report.scenario.name)))"
        ],
        ""
      )
    }
    // The committed JSON files are part of the baseline: one missing or unreadable is a failure of
    // the gate, named, never a difference "in format only".
    let broken = produced.map(\.name).filter { $0.hasSuffix(".json") }.compactMap { name -> String? in
      let path = OutputPath.join(directory, name)
      switch ScenarioFile.readBounded(path, limit: 64 << 20) {
      case .failure(let problem): return "the committed \(name) cannot be read (\(problem.message)): \(path)"
      case .success(let bytes):
        guard (try? JSONParser.parse(bytes)) != nil else {
          return "the committed \(name) is not valid JSON: \(path) (restore it from version control, "
            + "or record anew with --update)"
        }
        return nil
      }
    }
    if !broken.isEmpty { return (broken, "") }
    let value = { (column: String) -> String? in committed.columns.firstIndex(of: column).map { row[$0] } }
    let newSummary = report.summaryTable(version: SyncSimCommand.version)
    let newValue = { (column: String) -> String? in
      newSummary.columns.firstIndex(of: column).map { newSummary.rows[0][$0] }
    }
    // Metric by metric: a metric on one side only is information (a policy added to or taken
    // from the set, a new metric), never a failure by itself.
    let metrics = { (columns: [String]) in columns.filter { RunSummary.metric(column: $0) != nil } }
    let (oldMetrics, newMetrics) = (metrics(committed.columns), metrics(newSummary.columns))
    var information: [String] = []
    let onlyOld = oldMetrics.filter { !newMetrics.contains($0) }
    let onlyNew = newMetrics.filter { !oldMetrics.contains($0) }
    if !onlyOld.isEmpty {
      information.append("metrics only in the committed results: " + onlyOld.joined(separator: ", "))
    }
    if !onlyNew.isEmpty { information.append("metrics new in this run: " + onlyNew.joined(separator: ", ")) }
    var moved: [(line: String, size: Double, tier: Int)] = []
    for name in newMetrics where oldMetrics.contains(name) {
      guard let info = RunSummary.metric(column: name), let old = value(name), let new = newValue(name), old != new
      else { continue }
      let tolerance = report.scenario.tolerances[name] ?? 0
      if let a = Double(old), let b = Double(new), tolerance > 0, abs(b - a) <= tolerance * max(abs(a), 1e-12) {
        continue
      }
      let move = Self.movement(info, old: old, new: new)
      moved.append((move.line, move.size, Self.tier(name, expectations: report.expectations)))
    }
    // The scenario changed when its resolved form hashes differently today: the committed
    // resolved.json is hashed again, so a new hash format or a new default is not a change.
    let recorded = committedScenario(directory)
    let committedHash = recorded.map { ScenarioResolver.hash($0) } ?? value("scenarioHash")
    // A different hash with only unwritten members differing is a change of SyncSim's defaults:
    // the model changed, not the scenario file.
    let defaults =
      committedHash == report.scenarioHash
      ? []
      : recorded.flatMap {
        ScenarioResolver.changedDefaults(recorded: $0, current: report.resolved, written: report.scenario.document)
      }
    let scenarioChanged = committedHash != report.scenarioHash && defaults == nil
    if let defaults, !defaults.isEmpty {
      information.append(
        "defaults changed since the results were recorded: " + defaults.prefix(5).joined(separator: ", ")
          + (defaults.count > 5 ? " and \(defaults.count - 5) more" : ""))
    }
    let cause =
      scenarioChanged
      ? "the scenario file changed (scenarioHash \(committedHash ?? "?") → \(report.scenarioHash))"
      : defaults?.isEmpty == false
        ? "the scenario file is the same but SyncSim's defaults changed, so the model changed"
        : "the scenario is the same, so the model changed"
    let informationNote = information.isEmpty ? "" : "; information: " + information.joined(separator: "; ")
    if value("fingerprint") == report.fingerprint {
      let differing = produced.filter { file in
        let path = OutputPath.join(directory, file.name)
        return (try? String(contentsOfFile: path, encoding: .utf8)) != file.text
      }.map(\.name)
      if differing.isEmpty { return ([], "unchanged, fingerprint \(report.fingerprint)") }
      if !moved.isEmpty {
        return (
          [
            "the same trajectory (fingerprint \(report.fingerprint)) gives other metrics: how a metric is computed "
              + "changed, most \(moved.sorted(by: Self.readFirst)[0].line)"
          ] + moved.map(\.line), ""
        )
      }
      if scenarioChanged, Set(differing).isSubset(of: ["summary.csv", "resolved.json"]),
        let note = scenarioEditNote(report, committed: committed, row: row)
      {
        return ([note], "")
      }
      // Same trajectory and metrics: summary.csv, resolved.json and datapackage.json may differ
      // by columns that came or went, and by defaults written out; anything else is the format.
      let explained: Set<String> = ["summary.csv", "resolved.json", "datapackage.json"]
      let unexplained = differing.filter { !explained.contains($0) }
      if unexplained.isEmpty && !scenarioChanged {
        let same = "same behaviour, fingerprint \(report.fingerprint); \(differing.joined(separator: ", ")) "
        // A committed file that differs is a stale result whatever the reason (issue 72): a
        // reviewer must be able to read "nothing changed" from `git diff Results/`.
        if lenient { return ([], same + "differ in format only (passed with --lenient)\(informationNote)") }
        return (
          [
            "the committed results are stale: " + same + "differ in format only; record them with: "
              + recordCommand(report, baseline: baseline)
          ] + information, ""
        )
      }
      return (
        [
          "only the output format changed: the same trajectory and metrics, but \(unexplained.joined(separator: ", ")) "
            + "differ (record with --update if the new format is meant)"
        ], ""
      )
    }
    if moved.isEmpty {
      let line =
        "trajectory changed (fingerprint \(value("fingerprint") ?? "?") → \(report.fingerprint)), metrics within "
        + "tolerance"
      // The scenario's own tolerances pass a move by design; with none declared, every metric
      // is equal but the files are not: stale, unless --lenient.
      if lenient || !report.scenario.tolerances.isEmpty { return ([], line + informationNote) }
      return (
        ["the committed results are stale: " + line + "; record them with: " + recordCommand(report, baseline: baseline)]
          + information, ""
      )
    }
    // The largest moves first, each with its % and unit: what a reviewer reads first.
    moved.sort(by: Self.readFirst)
    let headline =
      "behaviour changed: \(moved.count) metric\(moved.count == 1 ? "" : "s") moved, most \(moved[0].line); "
      + "\(cause); fingerprint \(value("fingerprint") ?? "?") → \(report.fingerprint)"
    return ([headline] + moved.map(\.line) + information, "")
  }

  /// The command that records a scenario's results where this check looks.
  static func recordCommand(_ report: RunReport, baseline: String) -> String {
    let where_ = baseline == "Results" ? "" : " --baseline \(shellQuoted(baseline))"
    return "syncsim check --update\(where_) \(shellQuoted(report.scenario.name))"
  }

  /// The committed run's resolved scenario (`resolved.json`'s `scenario`), hashed again as this
  /// version hashes and compared with today's resolution; nil without a readable file.
  static func committedScenario(_ directory: String) -> JSONNode? {
    guard let data = FileManager.default.contents(atPath: OutputPath.join(directory, "resolved.json")),
      let root = try? JSONParser.parse(Array(data))
    else { return nil }
    return root.member("scenario")
  }

  /// One metric's move as a reviewer reads it: `latency.p50: 4.922 s → 5.906 s (+20.0 %)`, and
  /// its size for ordering (a change from or to undefined first, then by |%|).
  static func movement(_ info: RunSummary.MetricInfo, old: String, new: String) -> (line: String, size: Double) {
    let unit = info.isDuration ? " s" : ""
    func shown(_ text: String) -> String {
      guard let value = Double(text) else { return "undefined" }
      return (info.isDuration ? String(format: "%.3f", value) : CSVTable.number(value)) + unit
    }
    guard let a = Double(old), let b = Double(new) else {
      return ("\(info.name): \(shown(old)) → \(shown(new))", .infinity)
    }
    let percent = a == 0 ? (b == 0 ? 0 : Double.infinity) : (b - a) / abs(a) * 100
    let change = percent.isFinite ? String(format: "%+.1f %%", percent) : "from 0"
    return ("\(info.name): \(shown(old)) → \(shown(new)) (\(change))", abs(percent))
  }

  /// What a reviewer reads first: a metric whose expectation failed (tier 2), then those the
  /// scenario's expectations name and the headline metrics (latency, convergence, rows never
  /// visible, lost updates; tier 1), then the rest; by size within a tier. So
  /// `latency.isLowerBound: 0 → 1` (from 0: an infinite %) never ranks above `latency.p95 +2,386 %`.
  static func tier(_ metric: String, expectations: [ExpectationResult]) -> Int {
    let named = expectations.filter { $0.expectation.metric == metric }
    if named.contains(where: { !$0.passed }) { return 2 }
    return !named.isEmpty || headlineMetrics.contains(metric) ? 1 : 0
  }

  /// Whether move `a` is read before move `b`: by `tier`, then by size.
  static func readFirst(
    _ a: (line: String, size: Double, tier: Int), _ b: (line: String, size: Double, tier: Int)
  ) -> Bool {
    a.tier != b.tier ? a.tier > b.tier : a.size > b.size
  }

  static let headlineMetrics = [
    "latency.p50", "latency.p95", "latency.p99", "latency.max", "latency.mean", "latency.kaplanMeierP50",
    "converged", "convergenceTime", "rowsNotVisible", "lostUpdates",
  ]

  /// When only the scenario file's text changed (its hash, and perhaps its expectations' counts)
  /// and every metric is the same, says so: an edited expectation or description, results unaffected.
  static func scenarioEditNote(_ report: RunReport, committed: CSVTable, row: [String]) -> String? {
    let new = report.summaryTable(version: SyncSimCommand.version)
    guard new.columns == committed.columns else { return nil }
    let changed = zip(new.columns, zip(row, new.rows[0])).filter { $1.0 != $1.1 }.map(\.0)
    let editOnly: Set<String> = ["scenarioHash", "expectationsMet", "expectationsFailed"]
    guard Set(changed).isSubset(of: editOnly) else { return nil }
    let expectations = report.expectations.map { "\($0.expectation.path) \($0.description)" }.joined(separator: "; ")
    return "the scenario file changed but the run did not (same fingerprint and metrics): an expectation, tolerance "
      + "or description was edited, results are unaffected. Expectations now: \(expectations). Record it with: "
      + "syncsim check --update \(report.scenario.name)"
  }

  static func junitXML(_ outcomes: [Outcome]) -> String {
    let escape = XMLText.escaped
    func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
    let errors = outcomes.filter { $0.isError }.count
    let failed = outcomes.filter { !$0.failures.isEmpty && !$0.isError }.count
    let total = time(outcomes.reduce(0) { $0 + $1.seconds })
    let counts = "tests=\"\(outcomes.count)\" failures=\"\(failed)\" errors=\"\(errors)\" time=\"\(total)\""
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    xml += "<testsuites name=\"syncsim check\" \(counts)>\n"
    xml += "  <testsuite name=\"syncsim check\" \(counts)>\n"
    xml += "    <properties>\n"
    xml += "      <property name=\"syncsimVersion\" value=\"\(escape(SyncSimCommand.version))\"/>\n"
    xml += "    </properties>\n"
    for outcome in outcomes {
      xml +=
        "    <testcase classname=\"syncsim.check\" name=\"\(escape(outcome.name))\" time=\"\(time(outcome.seconds))\">\n"
      if !outcome.failures.isEmpty {
        let element = outcome.isError ? "error" : "failure"
        xml += "      <\(element) message=\"\(escape(outcome.failures[0]))\">"
        xml += escape(outcome.failures.joined(separator: "\n")) + "</\(element)>\n"
      }
      // Provenance of each case: which scenario, in which resolved form, run by which syncsim.
      var provenance = "scenario \(outcome.name)\nsyncsimVersion \(SyncSimCommand.version)"
      if !outcome.scenarioHash.isEmpty {
        provenance += "\nscenarioHash \(outcome.scenarioHash)\nfingerprint \(outcome.fingerprint)"
      }
      xml += "      <system-out>\(escape(provenance))</system-out>\n    </testcase>\n"
    }
    xml += "  </testsuite>\n</testsuites>\n"
    return xml
  }
}
