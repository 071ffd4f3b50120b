import SimKernel

/// One row's fields as UTF-8 bytes, built in place: a time written as its digits, a text as its
/// bytes, with no `String` per field. A sink encodes it as it would the same fields as strings
/// (`CSVRowSink.append(record:)`: neutralised and quoted alike), so the file is the same byte for
/// byte. A `latency.csv` row has about 80 fields, most of them times; made as strings, they and
/// their encoding were about a third of a fleet's run.
public struct CSVRecord: Sendable {
  /// The fields' bytes, one after another, as given (not yet neutralised or quoted).
  private(set) var bytes: [UInt8] = []
  /// Where each field ends in `bytes`.
  private(set) var ends: [Int32] = []

  public init() {}

  public var count: Int { ends.count }

  /// Empties the record for the next row, keeping its storage.
  public mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
  }

  /// A text field.
  public mutating func append(_ field: String) {
    var field = field
    field.withUTF8 { bytes.append(contentsOf: $0) }
    ends.append(Int32(bytes.count))
  }

  /// Text fields, in order.
  public mutating func append(contentsOf fields: [String]) {
    for field in fields { append(field) }
  }

  /// An empty field.
  public mutating func appendEmpty(count: Int = 1) {
    for _ in 0..<count { ends.append(Int32(bytes.count)) }
  }

  /// Seconds with nine decimals, as `CSVTable.seconds` writes them.
  public mutating func appendSeconds(_ duration: SimDuration) {
    appendFixed(duration.nanoseconds, decimals: 9, to: &bytes)
    ends.append(Int32(bytes.count))
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

  /// The fields as strings (what a table in memory holds).
  public var fields: [String] {
    ends.indices.map { index in
      let start = index == 0 ? 0 : Int(ends[index - 1])
      return String(decoding: bytes[start..<Int(ends[index])], as: UTF8.self)
    }
  }

  /// The row as a CSV line, each field neutralised and quoted as `CSVTable.appendField` does.
  func appendEncoded(to output: inout [UInt8]) {
    bytes.withUnsafeBufferPointer { all in
      var start = 0
      for index in ends.indices {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        let end = Int(ends[index])
        let field = UnsafeBufferPointer(rebasing: all[start..<end])
        if let first = field.first, CSVTable.formulaPrefixes.contains(first) {
          // Rare (a negative number, a hostile name): encoded through the string path.
          CSVTable.appendField(String(decoding: field, as: UTF8.self), to: &output)
        } else {
          CSVTable.appendField(utf8: field, to: &output)
        }
        start = end
      }
    }
    output.append(UInt8(ascii: "\n"))
  }
}
