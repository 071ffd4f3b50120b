/// A trace's page says what the log it came from can see and what it cannot (no times, no
/// scheduler lines, no push receipts, one device), so that an empty chart reads as "the log
/// does not show it", never as "nothing waited"; and lists what failed.
struct LogCoverage {
  let page: RunPage

  /// What the log holds, in sentences, each with what follows for the charts below.
  func html() -> String {
    var lines: [String] = []
    let summary = page.summary
    let row = page.row
    if summary.text(row, "timed") == "0" {
      lines.append(
        "The log has no times (the Xcode console as copied): the order of its events and their outcomes are read, "
          + "no durations. Show Xcode's timestamps, or take the log with <code>log show</code>, for them.")
    }
    let activities = page.activities
    let decided = activities.map { table in table.rows.contains { !table.text($0, "decidedAt").isEmpty } } ?? false
    if !decided {
      lines.append(
        "The log has no scheduler (dasd) lines: the policies that held exports and imports are unknown, so no wait "
          + "is split by policy below (not: nothing waited).")
    }
    let pushes = page.metric("pushes.delivered") ?? 0
    if pushes == 0 {
      lines.append("The log has no push: a row's wait for its import cannot be split into notify and schedule.")
    }
    if (page.metric("rows") ?? 0) == 0 {
      lines.append(
        "The log has no save with a second device of its account: no save-to-visible row, so no latency is drawn.")
    }
    let problems = page.metric("problems") ?? 0
    if problems > 0 { lines.append("\(SVG.number(problems)) lines looked like sync lines and did not parse (listed by <code>syncsim trace</code>).") }
    if lines.isEmpty { lines.append("The log has times, scheduler decisions, pushes and rows: every chart below is the log's own.") }
    return "<ul class=\"coverage\">" + lines.map { "<li>\($0)</li>" }.joined() + "</ul>\n"
  }

  /// A source `Name (https://…)` as its name linked to its address (the address alone made the
  /// column as wide as the page).
  static func source(_ text: String) -> String {
    guard let open = text.range(of: " (https://"), text.hasSuffix(")") else { return XMLText.escaped(text) }
    let name = String(text[..<open.lowerBound])
    let address = String(text[text.index(open.lowerBound, offsetBy: 2)..<text.index(before: text.endIndex)])
    return "<a href=\"\(XMLText.escaped(address))\">\(XMLText.escaped(name))</a>"
  }

  /// The findings as a table: when, device, what failed, the error, what to do, the source.
  static func findingsTable(_ findings: ReportTable) -> String {
    var out = "<table class=\"findings\"><tr><th>#</th><th>device</th><th>when</th><th>what failed</th><th>error</th>"
      + "<th>what it means</th><th>what to do</th><th>source</th></tr>"
    for row in findings.rows.prefix(200) {
      func text(_ column: String) -> String { XMLText.escaped(findings.text(row, column)) }
      let time = findings.text(row, "time")
      let when = time.isEmpty ? "message \(text("order"))" : (Double(time).map { SVG.duration($0) } ?? text("time"))
      var error = text("domain") + " " + text("code")
      if !findings.text(row, "internalCode").isEmpty { error += "/" + text("internalCode") }
      error += "<br>" + text("name")
      if !findings.text(row, "retryAfter").isEmpty { error += "<br>retry after \(text("retryAfter")) s" }
      if !findings.text(row, "firstRecordError").isEmpty { error += "<br>record: " + text("firstRecordError") }
      if !findings.text(row, "detail").isEmpty { error += "<br><code>" + text("detail") + "</code>" }
      out += "<tr><td>\(text("finding"))</td><td>\(text("device"))</td><td>\(when)</td><td>\(text("work"))</td>"
        + "<td>\(error)</td><td>\(text("meaning"))</td><td>\(text("action"))</td><td>\(source(findings.text(row, "source")))</td></tr>"
    }
    if findings.rows.count > 200 { out += "<tr><td colspan=\"8\">… \(findings.rows.count - 200) more in findings.csv</td></tr>" }
    return out + "</table>\n"
  }
}
