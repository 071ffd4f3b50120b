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
  public var text: String {
    var out = columns.map(Self.quote).joined(separator: ",") + "\n"
    for row in rows { out += row.map(Self.quote).joined(separator: ",") + "\n" }
    return out
  }

  static func quote(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
    return "\"" + field.replacingAll("\"", with: "\"\"") + "\""
  }

  /// Seconds with nine decimals.
  public static func seconds(_ duration: SimDuration) -> String { formatFixed(duration.nanoseconds, decimals: 9) }
  public static func seconds(_ time: SimTime) -> String { formatFixed(time.nanoseconds, decimals: 9) }
  public static func seconds(_ time: SimTime?) -> String { time.map(seconds) ?? "" }

  /// A metric value: a duration as seconds with nine decimals, a count as an integer when whole.
  public static func value(_ value: Double?, isDuration: Bool) -> String {
    guard let value else { return "" }
    if isDuration { return formatFixed(SimDuration(seconds: value).nanoseconds, decimals: 9) }
    return number(value)
  }

  /// A locale-free number: integers without a decimal point, others with up to six decimals.
  public static func number(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    let scaled = (value * 1e6).rounded()
    var text = formatFixed(Int64(scaled) * 1000, decimals: 9)
    while text.hasSuffix("0") { text.removeLast() }
    return text
  }
}

extension String {
  func replacingAll(_ target: Character, with replacement: String) -> String {
    var result = ""
    for character in self { if character == target { result += replacement } else { result.append(character) } }
    return result
  }
}

extension CSVTable {
  /// Parses RFC 4180 text (as this type writes it) into a table; nil if it has no header.
  public static func parse(_ text: String) -> CSVTable? {
    var records: [[String]] = []
    var field = ""
    var record: [String] = []
    var quoted = false
    var iterator = Array(text).makeIterator()
    var pending: Character? = nil
    func next() -> Character? {
      if let character = pending {
        pending = nil
        return character
      }
      return iterator.next()
    }
    while let character = next() {
      if quoted {
        if character == "\"" {
          if let following = next() {
            if following == "\"" { field.append("\"") } else {
              quoted = false
              pending = following
            }
          } else {
            quoted = false
          }
        } else {
          field.append(character)
        }
        continue
      }
      switch character {
      case "\"": quoted = true
      case ",":
        record.append(field)
        field = ""
      case "\n", "\r\n":
        record.append(field)
        records.append(record)
        record = []
        field = ""
      case "\r": break
      default: field.append(character)
      }
    }
    if !field.isEmpty || !record.isEmpty {
      record.append(field)
      records.append(record)
    }
    guard let header = records.first else { return nil }
    var table = CSVTable(columns: header)
    for row in records.dropFirst() where row.count == header.count { table.append(row) }
    return table
  }
}
