import Foundation
import SimMetrics

/// A CSV file of a result folder, read by column name.
struct ReportTable {
  let table: CSVTable
  private let index: [String: Int]  // lookup only

  init(_ table: CSVTable) {
    self.table = table
    var index: [String: Int] = [:]
    for (position, name) in table.columns.enumerated() where index[name] == nil { index[name] = position }
    self.index = index
  }

  /// Reads `name` in `directory`; nil when the file is absent or not a CSV table.
  static func read(_ directory: String, _ name: String) -> ReportTable? {
    guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8),
      let table = CSVTable.parse(text)
    else { return nil }
    return ReportTable(table)
  }

  var rows: [[String]] { table.rows }
  var columns: [String] { table.columns }

  func has(_ column: String) -> Bool { index[column] != nil }

  /// The text of `column` in `row` ("" when the column is absent).
  func text(_ row: [String], _ column: String) -> String {
    guard let position = index[column], position < row.count else { return "" }
    return row[position]
  }

  /// The number in `column` of `row`; nil when empty, absent, not a number, or not finite (a
  /// hand-edited file must not make the report trap).
  func number(_ row: [String], _ column: String) -> Double? {
    guard let value = Double(text(row, column)), value.isFinite, abs(value) < 1e15 else { return nil }
    return value
  }
}
