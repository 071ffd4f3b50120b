import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimModel
import SimScenario

/// The short summary `run` prints to standard output.
enum RunSummaryPrinter {
  static func print(_ report: RunReport, wall: Duration, directory: String, console: Console) {
    let summary = report.summary
    func duration(_ name: String) -> String {
      summary.value(name).map { DurationText.display(SimDuration(seconds: $0)) } ?? "–"
    }
    func count(_ name: String) -> String { summary.value(name).map(CSVTable.number) ?? "–" }
    let wallSeconds = wall.secondsValue
    console.print("scenario     \(report.scenario.name)   seed \(report.seed)")
    console.print(
      "simulated    \(DurationText.display(SimDuration(nanoseconds: report.outcome.endTime.nanoseconds)))   \(report.outcome.processedEvents) events   wall \(String(format: "%.2f", wallSeconds)) s"
    )
    let partCount = report.partFingerprints.count
    if partCount > 1 {
      console.print("parts        \(partCount) independent groups of accounts, each run on its own kernel")
    } else if let coupling = report.coupling, report.scenario.spec.accountCount > 1 {
      console.print("parts        one: the accounts are coupled by \(coupling)")
    }
    if let shard = report.shard {
      let held = report.scenario.shardWindow.map { _ in
        ", holding only its \(report.scenario.spec.devices.count) devices"
      }
      console.print(
        "shard        \(shard.shard.text): parts \(shard.parts.lowerBound + 1)–\(shard.parts.upperBound) of "
          + "\(shard.partCount)\(held ?? ""); syncsim merge adds the \(shard.shard.count) shards up")
    }
    if case .reachedEventLimit(let limit) = report.outcome.stopReason {
      console.print("stopped      at the event limit (\(limit) events): the run did not reach its end")
    }
    console.print("fingerprint  \(report.fingerprint)")
    console.print(
      "latency      p50 \(duration("latency.p50"))   p95 \(duration("latency.p95"))   max \(duration("latency.max"))   (\(count("rowsVisible")) of \(count("rows")) rows visible)"
    )
    // Rows never visible are censored: every latency statistic covers the visible rows only,
    // so with some still unseen at the end, the percentiles, mean and max are lower bounds.
    if let unseen = summary.value("rowsNotVisible"), unseen > 0 {
      console.print(
        "censored     \(count("rowsNotVisible")) rows never became visible by the end: the latency figures "
          + "cover visible rows only and are lower bounds")
    }
    let converged = summary.value("converged") == 1
    console.print(
      "convergence  "
        + (converged
          ? "converged (every store held the server's state, nothing pending) \(duration("convergenceTime")) after the last write"
          : "never converged (some store still differed from the server, or held unexported writes, at the end)"))
    console.print(
      "writes       \(count("writes")) made, \(count("writesCommitted")) committed, \(count("writesPending")) pending, \(count("lostUpdates")) lost updates"
    )
    let blocking = summary.catalog.map(\.name).filter { $0.hasPrefix("blocked.") && $0.hasSuffix(".total") }
      .compactMap { name -> (String, Double)? in
        guard let value = summary.value(name), value > 0 else { return nil }
        return (String(name.dropFirst(8).dropLast(6)), value)
      }
      .sorted { ($1.1, $0.0) < ($0.1, $1.0) }
    console.print(
      "blocking     "
        + (blocking.isEmpty
          ? "none"
          : blocking.prefix(3).map { "\($0.0) \(DurationText.display(seconds: $0.1))" }.joined(
            separator: ", ")))
    if let (waits, notWaits) = topCauses(report) {
      if let waits { console.print("waits        " + waits) }
      if let notWaits { console.print("not waits    " + notWaits) }
    }
    // A wait under a policy whose documented escape the model leaves out depends on that rule.
    for definition in PolicyRegistry.standard.definitions {
      guard let rule = definition.omittedRule, let held = summary.value("blocked.\(definition.name).total"), held > 0,
        report.scenario.spec.scheduler.policies.first(where: { $0.name == definition.name })?.leavesOutDocumentedRule
          ?? true
      else { continue }
      console.print(
        "note         \(definition.name) held activities for \(duration("blocked.\(definition.name).total")): \(rule)")
    }
    let failed = report.expectations.filter { !$0.passed }
    if report.shard != nil && !report.scenario.expectations.isEmpty {
      console.print(
        "expectations \(report.scenario.expectations.count), evaluated by `syncsim merge` on the whole run (a shard "
          + "holds part of the world)")
    }
    if !report.expectations.isEmpty {
      console.print("expectations \(report.expectations.count - failed.count) met, \(failed.count) failed")
      for result in report.expectations { console.print("  \(result.passed ? "ok  " : "FAIL") \(result.description)") }
    }
    console.print("results      \(directory)/")
  }

  /// The largest causes of latency over every row, visible or stuck (to the end of the run), with
  /// their share: what a person asks first ("what is it waiting on?"). Only where the run kept
  /// its rows (`latency.csv`); nil otherwise. Time no sync could shorten, a ghost's (a public
  /// delete a reader never fetches), a hidden row's (a record type its model never reads) and a
  /// lost write's after its loss, is
  /// left out of the shares and told on a line of its own: it ranked first in public apps'
  /// and mixed model versions' waits, over every real wait.
  static func topCauses(_ report: RunReport) -> (waits: String?, notWaits: String?)? {
    guard report.scenario.outputs.contains("latency"), let causes = report.allCauseTotals() else { return nil }
    var totals: [String: Int128] = [:]  // nanoseconds, 128-bit: stuck rows of long runs add past 64 bits
    for (name, total) in causes { totals[name] = total }
    let order = causes.map(\.name)
    let seconds = { (name: String) in Double(totals[name]!) / 1e9 }
    let notWaitNames = ["notify.ghost": "ghost rows", "hidden": "hidden rows", "exportHeld.lost": "lost writes"]
    let waitNames = order.filter { notWaitNames[$0] == nil }
    let notWaits = order.filter { notWaitNames[$0] != nil }.map {
      "\(notWaitNames[$0]!) \(DurationText.display(seconds: seconds($0)))"
    }
    let notWaitLine =
      notWaits.isEmpty
      ? nil
      : notWaits.joined(separator: ", ")
        + "   (time no sync shortens: deletes a reader never fetches, record types its model never reads, "
        + "writes lost on their device)"
    let all = waitNames.map(seconds).reduce(0, +)
    guard all > 0 else { return notWaitLine == nil ? nil : (nil, notWaitLine) }
    // The largest first; ties in pipeline order (a dictionary's order never reaches output).
    let ranked = waitNames.enumerated().sorted { a, b in
      let (x, y) = (totals[a.element]!, totals[b.element]!)
      return x != y ? x > y : a.offset < b.offset
    }.map(\.element)
    let rows = report.summary.value("rows").map(CSVTable.number) ?? "?"
    let waits =
      ranked.prefix(3).map { name in
        let seconds = seconds(name)
        return
          "\(name) \(String(format: "%.0f", seconds / all * 100)) % (\(DurationText.display(seconds: seconds)))"
      }.joined(separator: ", ") + "   of the time all \(rows) rows waited (a row never visible counts to the run's end)"
    return (waits, notWaitLine)
  }
}
