import Foundation
import SimMetrics

/// A CSV file of a result folder, read by column name without holding its fields.
///
/// The file is mapped, not read, and only where each record starts and ends is kept (16 bytes a
/// row); a field is decoded when it is asked for. A report of a 235 MB `latency.csv` needed about
/// 20 times the file's size when every field was a `String` (docs/limits.md). Fields decode as
/// `CSVTable.parse` decodes them (RFC 4180: quoted fields, doubled quotes, CR ignored outside
/// quotes), and records whose field count differs from the header's are left out, as there.
struct ReportTable {
  /// One record: where its bytes lie in the file.
  struct Row {
    let start: Int
    let end: Int
  }

  let columns: [String]
  let rows: [Row]
  private let bytes: Data
  private let index: [String: Int]  // lookup only

  init?(bytes: Data) {
    let ranges = Self.records(bytes)
    guard let first = ranges.first else { return nil }
    self.bytes = bytes
    let header = Self.fields(bytes, first)
    columns = header
    rows = ranges.dropFirst().filter { Self.fieldCount(bytes, $0) == header.count }
    var index: [String: Int] = [:]
    for (position, name) in header.enumerated() where index[name] == nil { index[name] = position }
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
    return Self.field(bytes, row, position) ?? ""
  }

  /// The number in `column` of `row`; nil when empty, absent, not a number, or not finite (a
  /// hand-edited file must not make the report trap).
  func number(_ row: Row, _ column: String) -> Double? {
    guard let value = Double(text(row, column)), value.isFinite, abs(value) < 1e15 else { return nil }
    return value
  }

  /// Where each record lies: split at line feeds outside quotes; an empty last line is no record.
  static func records(_ bytes: Data) -> [Row] {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [Row] in
      var rows: [Row] = []
      var quoted = false
      var start = 0
      for position in 0..<raw.count {
        let byte = raw[position]
        if byte == 0x22 {
          quoted.toggle()
        } else if byte == 0x0A && !quoted {
          rows.append(Row(start: start, end: position))
          start = position + 1
        }
      }
      // A last record without a line feed counts unless it is empty (as `CSVTable.parse`).
      var rest = start
      while rest < raw.count && raw[rest] == 0x0D { rest += 1 }
      if rest < raw.count { rows.append(Row(start: start, end: raw.count)) }
      return rows
    }
  }

  /// How many fields `row` has.
  static func fieldCount(_ bytes: Data, _ row: Row) -> Int {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
      var count = 1
      var quoted = false
      for position in row.start..<row.end {
        let byte = raw[position]
        if byte == 0x22 { quoted.toggle() } else if byte == 0x2C && !quoted { count += 1 }
      }
      return count
    }
  }

  /// Every field of `row`, decoded.
  static func fields(_ bytes: Data, _ row: Row) -> [String] {
    (0..<fieldCount(bytes, row)).map { field(bytes, row, $0) ?? "" }
  }

  /// Field `wanted` of `row`, decoded; nil when the row has fewer fields.
  static func field(_ bytes: Data, _ row: Row, _ wanted: Int) -> String? {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
      var field = 0
      var position = row.start
      // Skip to the wanted field's first byte.
      var quoted = false
      while field < wanted {
        guard position < row.end else { return nil }
        let byte = raw[position]
        if byte == 0x22 { quoted.toggle() } else if byte == 0x2C && !quoted { field += 1 }
        position += 1
      }
      var out: [UInt8] = []
      quoted = false
      while position < row.end {
        let byte = raw[position]
        position += 1
        if quoted {
          if byte == 0x22 {
            if position < row.end && raw[position] == 0x22 {
              out.append(0x22)
              position += 1
            } else {
              quoted = false
            }
          } else {
            out.append(byte)
          }
          continue
        }
        switch byte {
        case 0x22: quoted = true
        case 0x2C: return String(decoding: out, as: UTF8.self)
        case 0x0D: break
        default: out.append(byte)
        }
      }
      return String(decoding: out, as: UTF8.self)
    }
  }
}
