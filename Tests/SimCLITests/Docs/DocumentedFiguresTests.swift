import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimTestSupport
import Testing

/// Issue 72, item 3: figures in the docs that come from a run or a default are recomputed, so that
/// they cannot go stale (the retry-after row said 3,206 draws and 41.3 s while the binary gave
/// 3,230 and 41.39 s; the push runtime's "80 % in 2–5 s" was 88 %). A run's figure is read from
/// its committed results, which `syncsim check` holds to the model byte for byte.
@Suite struct DocumentedFiguresTests {
  static func document(_ name: String) throws -> String {
    try String(contentsOfFile: packageRoot + "/docs/" + name, encoding: .utf8)
  }

  /// The committed summary of a library scenario, by column.
  static func summary(_ scenario: String) throws -> [String: String] {
    let text = try String(contentsOfFile: packageRoot + "/Results/\(scenario)/summary.csv", encoding: .utf8)
    let table = try #require(CSVTable.parse(text))
    return Dictionary(uniqueKeysWithValues: zip(table.columns, table.rows[0]))
  }

  /// A whole number as the docs write it: 3,230.
  static func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return out
  }

  @Test func theRetryAfterRowIsTheLibraryRunsDraws() throws {
    let summary = try Self.summary("realworld-retry-after")
    let mean = try #require(Double(summary["retryAfter.mean"] ?? ""))
    let draws = try #require(Int(summary["errors.serviceUnavailable"] ?? ""))
    let figure = "mean \(String(format: "%.2f", mean)) s over \(Self.grouped(draws)) draws (`retry-after`)"
    #expect(try Self.document("validation.md").contains(figure), "docs/validation.md should say: \(figure)")
  }

  @Test func thePushRuntimesShareInTwoToFiveSecondsIsItsDefaults() throws {
    guard case .lognormal(let mu, let sigma) = AppBehaviour().pushRuntime else {
      Issue.record("the push runtime is no longer a lognormal: rewrite its row")
      return
    }
    let cdf = { (x: Double) in 0.5 * (1 + erf((log(x) - mu) / (sigma * 2.0.squareRoot()))) }
    let percent = Int(((cdf(5) - cdf(2)) * 100).rounded())
    #expect(percent == 88)
    let figure = "capped at 30 s: \(percent) % of draws in 2–5 s"
    #expect(try Self.document("validation.md").contains(figure), "docs/validation.md should say: \(figure)")
  }
}
