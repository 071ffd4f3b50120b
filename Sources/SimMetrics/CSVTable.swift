import Foundation
import SimKernel

/// A CSV table: header declared once, rows of text fields, written with RFC 4180 quoting.
///
/// Numbers are formatted without locale: integers as digits, times and durations as seconds with
/// nine decimals (exact to the nanosecond, so stage columns add up exactly). Lines end with LF.
public struct CSVTable: Sendable {
  public let columns: [String]
  public private(set) var rows: [[String]] = []

  public init(columns: [String]) { self.columns = columns }

  public mutating func append(_ row: [String]) {
    precondition(row.count == columns.count, "row has \(row.count) fields for \(columns.count) columns")
    rows.append(row)
  }

  /// The table as RFC 4180 text.
  ///
  /// Built as UTF-8 bytes: a large run's latency table has millions of fields, and comparing
  /// them character by character took most of the time of writing it.
  public var text: String {
    var bytes: [UInt8] = []
    Self.appendRecord(columns, to: &bytes)
    for row in rows { Self.appendRecord(row, to: &bytes) }
    return String(decoding: bytes, as: UTF8.self)
  }

  static func appendRecord(_ fields: [String], to bytes: inout [UInt8]) {
    for index in fields.indices {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      appendField(fields[index], to: &bytes)
    }
    bytes.append(UInt8(ascii: "\n"))
  }

  /// One field, quoted if it holds a comma, a quote or a line break (a quote doubled inside).
  ///
  /// Read as one contiguous UTF-8 buffer (`withUTF8`): scanning the `utf8` view byte by byte was
  /// a tenth of writing a large latency.csv.
  static func appendField(_ field: String, to bytes: inout [UInt8]) {
    var field = field
    if let first = field.utf8.first, formulaPrefixes.contains(first) { field = neutralised(field) }
    field.withUTF8 { appendField(utf8: $0, to: &bytes) }
  }

  /// One field already neutralised, as UTF-8: quoted if it holds a comma, a quote or a line break.
  static func appendField(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
    let quote = UInt8(ascii: "\"")
    guard utf8.contains(where: needsQuotes) else {
      bytes.append(contentsOf: utf8)
      return
    }
    bytes.append(quote)
    for byte in utf8 {
      if byte == quote { bytes.append(quote) }
      bytes.append(byte)
    }
    bytes.append(quote)
  }

  /// Whether `byte` makes a field need quotes: a comma, a quote or a line break.
  @inline(__always)
  static func needsQuotes(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
  }

  /// The first bytes that make a spreadsheet read a cell as a formula: `=`, `+`, `-`, `@`, tab
  /// and carriage return (OWASP, "CSV Injection").
  static let formulaPrefixes: [UInt8] = [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D]

  /// Whether `field` is a number as this type writes one (`-0.5`, `-1e+300`, `-Inf`), which a
  /// spreadsheet reads as a number, not a formula.
  static func isPlainNumber(_ field: String) -> Bool {
    if field == "-Inf" { return true }
    guard field.utf8.count <= 40,
      field.utf8.dropFirst().allSatisfy({
        ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x65 || $0 == 0x2B || $0 == 0x2D
      })
    else { return false }
    return Double(field) != nil
  }

  /// A text field as a CSV file of this type holds it: neutralised as OWASP advises, a field that
  /// begins like a formula (and is not a number) gets a leading `'`, which spreadsheets show as
  /// text. Every field written passes here, so a name from a scenario or a field copied from a
  /// hostile folder (`merge`) cannot become a formula. Scenarios refuse such names outright.
  public static func neutralised(_ field: String) -> String {
    guard let first = field.utf8.first, formulaPrefixes.contains(first), !isPlainNumber(field) else { return field }
    return "'" + field
  }

  /// Seconds with nine decimals.
  public static func seconds(_ duration: SimDuration) -> String { formatFixed(duration.nanoseconds, decimals: 9) }
  public static func seconds(_ time: SimTime) -> String { formatFixed(time.nanoseconds, decimals: 9) }
  public static func seconds(_ time: SimTime?) -> String { time.map(seconds) ?? "" }

  /// A metric value: a duration as seconds with nine decimals, a count as an integer when whole.
  public static func value(_ value: Double?, isDuration: Bool) -> String {
    guard let value else { return "" }
    if isDuration {
      // A saturated sum (2^63 − 1 ns: `blocked.*.total`, `orphanTime.total`) is written as itself.
      // `SimDuration(seconds:)` holds a duration at 2^62 ns, so that a time plus it cannot
      // overflow; through it a saturated total read 2^62 ns, half its bound (issue 71, item 12).
      let scaled = value * 1e9
      if scaled >= 9_223_372_036_854_775_807.0 { return formatFixed(.max, decimals: 9) }
      if scaled <= -9_223_372_036_854_775_808.0 { return formatFixed(.min + 1, decimals: 9) }
      if abs(scaled) >= 9.2e18 { return formatFixed(Int64(scaled.rounded()), decimals: 9) }
      return formatFixed(SimDuration(seconds: value).nanoseconds, decimals: 9)
    }
    return number(value)
  }

  /// A locale-free number: integers without a decimal point, others with up to six decimals;
  /// beyond a billion, the shortest form that reads back exactly (`1.5e+300`), and `NaN`, `Inf`
  /// and `-Inf` as pandas, R and gnuplot read them.
  public static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "Inf" : "-Inf" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    // Six decimals of a larger value would overflow the fixed-point form below.
    if abs(value) >= 1e9 { return value.description }
    let scaled = (value * 1e6).rounded()
    var text = formatFixed(Int64(scaled) * 1000, decimals: 9)
    while text.hasSuffix("0") { text.removeLast() }
    // A value that rounds to zero at six decimals (a p-value of 1e-9) is "0", not "0.".
    if text.hasSuffix(".") { text.removeLast() }
    if text == "-0" { text = "0" }
    return text
  }
}

extension CSVTable {
  /// Parses RFC 4180 text (as this type writes it) into a table; nil if it has no header. Records
  /// whose field count differs from the header's are left out (see `parse(_:malformed:)`).
  public static func parse(_ text: String) -> CSVTable? {
    var malformed: [Int] = []
    return parse(text, malformed: &malformed)
  }

  /// Parses like `parse(_:)` and lists, in `malformed`, the record numbers (1 is the first after
  /// the header) whose field count differs from the header's: a truncated file's last row.
  public static func parse(_ text: String, malformed: inout [Int]) -> CSVTable? {
    // One decoder for every reader (`MappedCSV`): over UTF-8 bytes, where every byte that
    // matters (quote, comma, CR, LF) is ASCII. (Reading `Character`s into an array took 16 bytes
    // a character, most of a large report's memory.)
    guard let csv = MappedCSV(bytes: Data(text.utf8)) else { return nil }
    var table = CSVTable(columns: csv.columns)
    var cursor = csv.cursor()
    var isMalformed = false
    while let row = cursor.next(malformed: &isMalformed) {
      if isMalformed { malformed.append(cursor.number) } else { table.rows.append(row) }
    }
    return table
  }
}

/// Where CSV rows go: a table in memory, or a stream to a file.
public protocol CSVRowSink {
  mutating func append(_ row: [String])
  /// A row given as bytes (`CSVRecord`), written as its fields as strings would be.
  mutating func append(record: CSVRecord)
}

extension CSVRowSink {
  public mutating func append(record: CSVRecord) { append(record.fields) }
}

extension CSVTable: CSVRowSink {}

/// Rows encoded as they come and handed to `write` in chunks of about a megabyte, so that a file
/// of any length takes a megabyte of memory while it is written.
public final class CSVStream: CSVRowSink {
  private var buffer: [UInt8] = []
  private let write: ([UInt8]) throws -> Void
  private let chunkBytes: Int
  /// The first error `write` threw; later rows are dropped.
  public private(set) var error: (any Error)?

  /// A stream that starts with the header `columns` (or without it, continuing a file that has
  /// it: `header: false`).
  public init(
    columns: [String], header: Bool = true, chunkBytes: Int = 1 << 20, write: @escaping ([UInt8]) throws -> Void
  ) {
    self.write = write
    self.chunkBytes = chunkBytes
    buffer.reserveCapacity(chunkBytes + 4096)
    if header { CSVTable.appendRecord(columns, to: &buffer) }
  }

  public func append(_ row: [String]) {
    guard error == nil else { return }
    CSVTable.appendRecord(row, to: &buffer)
    if buffer.count >= chunkBytes { flush() }
  }

  public func append(record: CSVRecord) {
    guard error == nil else { return }
    record.appendEncoded(to: &buffer)
    if buffer.count >= chunkBytes { flush() }
  }

  /// Hands over what is buffered; throws the first error of any write.
  public func finish() throws {
    flush()
    if let error { throw error }
  }

  private func flush() {
    guard error == nil, !buffer.isEmpty else { return }
    do {
      try write(buffer)
    } catch {
      self.error = error
    }
    buffer.removeAll(keepingCapacity: true)
  }
}
