import Foundation

/// A CSV file read in place: mapped, not loaded, and decoded record by record as it is walked,
/// so that a file of any size takes memory for the record at hand only (`report` and `merge`).
///
/// Fields decode as `CSVTable.parse` decodes them (RFC 4180: quoted fields, doubled quotes, CR
/// ignored outside quotes, a blank line is no record).
public struct MappedCSV: @unchecked Sendable {
  /// One record: where its bytes lie in the file.
  public struct Record: Sendable {
    public let start: Int
    public let end: Int
  }

  public let bytes: Data
  public let columns: [String]
  /// Where the first record after the header starts.
  public let bodyStart: Int

  /// Maps `path`; nil when it cannot be read or has no header.
  public init?(path: String) {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
    self.init(bytes: data)
  }

  public init?(bytes: Data) {
    self.bytes = bytes
    var position = 0
    guard let header = Self.nextRecord(bytes, from: &position) else { return nil }
    columns = Self.fields(bytes, header)
    bodyStart = position
  }

  /// A walk over the records after the header, in file order.
  public struct Cursor {
    let csv: MappedCSV
    var position: Int
    /// The number of the record last returned (1 is the first after the header).
    public private(set) var number = 0

    /// The next record's fields, or nil at the end; `malformed` is set when its field count is
    /// not the header's (its fields are then not decoded).
    public mutating func next(malformed: inout Bool) -> [String]? {
      guard let record = MappedCSV.nextRecord(csv.bytes, from: &position) else { return nil }
      number += 1
      malformed = MappedCSV.fieldCount(csv.bytes, record) != csv.columns.count
      return malformed ? [] : MappedCSV.fields(csv.bytes, record)
    }
  }

  public func cursor() -> Cursor { Cursor(csv: self, position: bodyStart) }

  /// The next record from `position` (moved past it); blank lines are skipped; nil at the end.
  public static func nextRecord(_ bytes: Data, from position: inout Int) -> Record? {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Record? in
      while position < raw.count {
        let start = position
        var quoted = false
        var end = raw.count
        var scan = start
        while scan < raw.count {
          let byte = raw[scan]
          if byte == 0x22 {
            quoted.toggle()
          } else if byte == 0x0A && !quoted {
            end = scan
            break
          }
          scan += 1
        }
        position = min(end + 1, raw.count)
        var blank = true
        for index in start..<end where raw[index] != 0x0D {
          blank = false
          break
        }
        if !blank { return Record(start: start, end: end) }
      }
      return nil
    }
  }

  /// How many fields `record` has.
  public static func fieldCount(_ bytes: Data, _ record: Record) -> Int {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
      var count = 1
      var quoted = false
      for position in record.start..<record.end {
        let byte = raw[position]
        if byte == 0x22 { quoted.toggle() } else if byte == 0x2C && !quoted { count += 1 }
      }
      return count
    }
  }

  /// Every field of `record`, decoded.
  public static func fields(_ bytes: Data, _ record: Record) -> [String] {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [String] in
      var fields: [String] = []
      var field: [UInt8] = []
      var quoted = false
      var position = record.start
      while position < record.end {
        let byte = raw[position]
        position += 1
        if quoted {
          if byte == 0x22 {
            if position < record.end && raw[position] == 0x22 {
              field.append(0x22)
              position += 1
            } else {
              quoted = false
            }
          } else {
            field.append(byte)
          }
          continue
        }
        switch byte {
        case 0x22: quoted = true
        case 0x2C:
          fields.append(String(decoding: field, as: UTF8.self))
          field.removeAll(keepingCapacity: true)
        case 0x0D: break
        default: field.append(byte)
        }
      }
      fields.append(String(decoding: field, as: UTF8.self))
      return fields
    }
  }

  /// Field `wanted` of `record`, decoded; nil when the record has fewer fields.
  public static func field(_ bytes: Data, _ record: Record, _ wanted: Int) -> String? {
    bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
      var field = 0
      var position = record.start
      var quoted = false
      while field < wanted {
        guard position < record.end else { return nil }
        let byte = raw[position]
        if byte == 0x22 { quoted.toggle() } else if byte == 0x2C && !quoted { field += 1 }
        position += 1
      }
      // From the field's first byte to the comma that ends it, outside quotes.
      let start = position
      quoted = false
      while position < record.end {
        let byte = raw[position]
        if byte == 0x22 { quoted.toggle() } else if byte == 0x2C && !quoted { break }
        position += 1
      }
      return fields(bytes, Record(start: start, end: position)).first ?? ""
    }
  }
}
