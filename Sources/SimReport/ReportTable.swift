import Foundation
import SimMetrics

/// A CSV file of a result folder, read by column name without holding its fields.
///
/// The file is mapped, not read (`MappedCSV`), and only where each record starts and ends is kept
/// (16 bytes a row); a field is decoded when it is asked for. A report of a 235 MB `latency.csv`
/// needed about 20 times the file's size when every field was a `String` (docs/limits.md).
/// Records whose field count differs from the header's are left out, as `CSVTable.parse` does.
struct ReportTable {
  typealias Row = MappedCSV.Record

  let columns: [String]
  let rows: [Row]
  private let bytes: Data
  private let index: [String: Int]  // lookup only

  init?(bytes: Data) {
    guard let csv = MappedCSV(bytes: bytes) else { return nil }
    self.bytes = bytes
    columns = csv.columns
    var rows: [Row] = []
    var position = csv.bodyStart
    while let record = MappedCSV.nextRecord(bytes, from: &position) {
      if MappedCSV.fieldCount(bytes, record) == columns.count { rows.append(record) }
    }
    self.rows = rows
    var index: [String: Int] = [:]
    for (position, name) in columns.enumerated() where index[name] == nil { index[name] = position }
    self.index = index
  }

  /// Reads `name` in `directory`; nil when the file is absent or not a CSV table.
  static func read(_ directory: String, _ name: String) -> ReportTable? {
    let url = URL(fileURLWithPath: directory + "/" + name)
    guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return nil }
    return ReportTable(bytes: data)
  }

  func has(_ column: String) -> Bool { index[column] != nil }

  /// The text of `column` in `row` ("" when the column is absent).
  func text(_ row: Row, _ column: String) -> String {
    guard let position = index[column] else { return "" }
    return MappedCSV.field(bytes, row, position) ?? ""
  }

  /// The number in `column` of `row`; nil when empty, absent, not a number, or not finite (a
  /// hand-edited file must not make the report trap).
  func number(_ row: Row, _ column: String) -> Double? {
    guard let value = Double(text(row, column)), value.isFinite, abs(value) < 1e15 else { return nil }
    return value
  }
}
