import SimKernel

/// One row's fields as UTF-8 bytes, built in place: a time written as its digits, a text as its
/// bytes, with no `String` per field. A sink encodes it as it would the same fields as strings
/// (`CSVRowSink.append(record:)`: neutralised and quoted alike), so the file is the same byte for
/// byte. A `latency.csv` row has about 80 fields, most of them times; made as strings, they and
/// their encoding were about a third of a fleet's run.
///
/// The fields are kept joined by commas, as the line they make when none needs quoting or
/// neutralising (digits and plain names never do): such a line is written in one copy.
public struct CSVRecord: Sendable {
  /// The fields as given (not yet neutralised or quoted), joined by commas.
  private(set) var line: [UInt8] = []
  /// Where each field starts in `line`.
  private(set) var starts: [Int32] = []
  /// Whether some field holds a byte that needs quotes or begins like a formula: the line is then
  /// encoded field by field.
  private(set) var needsEncoding = false

  public init() {}

  public var count: Int { starts.count }

  /// Empties the record for the next row, keeping its storage.
  public mutating func removeAll() {
    line.removeAll(keepingCapacity: true)
    starts.removeAll(keepingCapacity: true)
    needsEncoding = false
  }

  /// Starts a field: the comma before it, and where it begins.
  @inline(__always)
  private mutating func beginField() {
    if !starts.isEmpty { line.append(UInt8(ascii: ",")) }
    starts.append(Int32(line.count))
  }

  /// A text field.
  public mutating func append(_ field: String) {
    beginField()
    var field = field
    field.withUTF8 { utf8 in
      if let first = utf8.first, CSVTable.formulaPrefixes.contains(first) { needsEncoding = true }
      if !needsEncoding, utf8.contains(where: CSVTable.needsQuotes) { needsEncoding = true }
      line.append(contentsOf: utf8)
    }
  }

  /// Text fields, in order.
  public mutating func append(contentsOf fields: [String]) {
    for field in fields { append(field) }
  }

  /// An empty field.
  public mutating func appendEmpty(count: Int = 1) {
    for _ in 0..<count { beginField() }
  }

  /// Seconds with nine decimals, as `CSVTable.seconds` writes them.
  public mutating func appendSeconds(_ duration: SimDuration) {
    beginField()
    // A negative time begins with `-`: the field-by-field path writes it as the string path does.
    if duration.nanoseconds < 0 { needsEncoding = true }
    appendFixed(duration.nanoseconds, decimals: 9, to: &line)
  }

  public mutating func appendSeconds(_ time: SimTime) { appendSeconds(SimDuration(nanoseconds: time.nanoseconds)) }

  /// A duration's seconds, or an empty field for none.
  public mutating func appendSeconds(_ duration: SimDuration?) {
    if let duration { appendSeconds(duration) } else { appendEmpty() }
  }

  /// A time's seconds, or an empty field for none.
  public mutating func appendSeconds(_ time: SimTime?) {
    if let time { appendSeconds(time) } else { appendEmpty() }
  }

  /// An integer's digits.
  public mutating func append(_ value: some BinaryInteger) { append(String(value)) }

  /// Where field `index` ends in `line`.
  private func end(of index: Int) -> Int { index + 1 < starts.count ? Int(starts[index + 1]) - 1 : line.count }

  /// The fields as strings (what a table in memory holds).
  public var fields: [String] {
    starts.indices.map { String(decoding: line[Int(starts[$0])..<end(of: $0)], as: UTF8.self) }
  }

  /// The row as a CSV line, each field neutralised and quoted as `CSVTable.appendField` does.
  func appendEncoded(to output: inout [UInt8]) {
    guard needsEncoding else {
      output.append(contentsOf: line)
      output.append(UInt8(ascii: "\n"))
      return
    }
    line.withUnsafeBufferPointer { all in
      for index in starts.indices {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        let field = UnsafeBufferPointer(rebasing: all[Int(starts[index])..<end(of: index)])
        if let first = field.first, CSVTable.formulaPrefixes.contains(first) {
          // Rare (a negative number, a hostile name): encoded through the string path.
          CSVTable.appendField(String(decoding: field, as: UTF8.self), to: &output)
        } else {
          CSVTable.appendField(utf8: field, to: &output)
        }
      }
    }
    output.append(UInt8(ascii: "\n"))
  }
}
