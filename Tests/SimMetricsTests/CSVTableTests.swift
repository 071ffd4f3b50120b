import Foundation
import SimKernel
import SimMetrics
import Testing

@Suite struct CSVTableTests {
  @Test func fieldsWithCommasQuotesOrLineBreaksAreQuotedAndReadBack() throws {
    var table = CSVTable(columns: ["name", "note"])
    let awkward = ["plain", "a,b", #"say "hi""#, "two\nlines", "cr\rhere", "crlf\r\nhere", "ünïcødé, too"]
    for field in awkward { table.append([field, "x"]) }
    let text = table.text
    #expect(text.hasPrefix("name,note\nplain,x\n\"a,b\",x\n\"say \"\"hi\"\"\",x\n"))
    // Every awkward field is quoted, so a naive reader never splits one.
    #expect(text.components(separatedBy: "\"").count - 1 == 2 * 6 + 4)
    let parsed = try #require(CSVTable.parse(text))
    #expect(parsed.columns == ["name", "note"])
    #expect(parsed.rows.map { $0[0] } == awkward)
  }

  /// Issue 71, item 12: a saturated duration sum (2^63 − 1 ns, as `docs/metrics.md` says) is
  /// written as itself; through `SimDuration(seconds:)` it read 2^62 ns.
  @Test func aSaturatedDurationIsWrittenAtItsBound() {
    let saturated = SimDuration(nanoseconds: .max).seconds
    #expect(CSVTable.value(saturated, isDuration: true) == "9223372036.854775807")
    #expect(CSVTable.value(saturated * 10, isDuration: true) == "9223372036.854775807")
    // Below the bound, a large sum keeps its digits to the double's precision.
    #expect(CSVTable.value(9.21e9, isDuration: true) == "9210000000.000000000")
    #expect(CSVTable.value(4.0e9, isDuration: true) == "4000000000.000000000")
    #expect(CSVTable.value(1.5, isDuration: true) == "1.500000000")
  }

  @Test func numbersAreLocaleFreeAndNeverTrap() {
    #expect(CSVTable.number(42) == "42")
    #expect(CSVTable.number(-2.5) == "-2.5")
    #expect(CSVTable.number(0.1234567) == "0.123457")
    #expect(CSVTable.number(999_999_999.25) == "999999999.25")
    // Beyond a billion the fixed-point form would overflow; the shortest exact form is used.
    #expect(CSVTable.number(12_345_678_901.5) == "12345678901.5")
    #expect(CSVTable.number(1e300) == "1e+300")
    #expect(CSVTable.number(-1e16) == "-1e+16")
    #expect(CSVTable.number(.nan) == "NaN")
    #expect(CSVTable.number(.infinity) == "Inf")
    #expect(CSVTable.number(-.infinity) == "-Inf")
  }
}

/// `formatFixed` writes its digits into a buffer; it must give what building the text from
/// pieces gave, for every precision, sign and rounding boundary.
@Suite struct FormatFixedTests {
  static func reference(_ nanoseconds: Int64, decimals: Int) -> String {
    var divisor: Int64 = 1
    for _ in 0..<(9 - decimals) { divisor *= 10 }
    let negative = nanoseconds < 0
    let magnitude = negative ? UInt64(bitPattern: 0 &- nanoseconds) : UInt64(nanoseconds)
    let scaled = (magnitude + UInt64(divisor / 2)) / UInt64(divisor)
    var scale: UInt64 = 1
    for _ in 0..<decimals { scale *= 10 }
    var text = (negative && scaled != 0 ? "-" : "") + String(scaled / scale)
    if decimals > 0 {
      let fraction = String(scaled % scale)
      text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
  }

  @Test func matchesTheTextBuiltFromPieces() {
    var values: [Int64] = [0, 1, -1, 5, -5, 499_999_999, 500_000_000, -500_000_000, 999_999_999, 1_000_000_000]
    values += [123_456_789_012, -987_654_321_098, Int64.max / 4, -(Int64.max / 4), 86_400_000_000_000]
    var state: UInt64 = 7
    for _ in 0..<2_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      values.append(Int64(bitPattern: state) >> Int64(state % 40 + 8))
    }
    for value in values {
      for decimals in 0...9 {
        #expect(
          formatFixed(value, decimals: decimals) == Self.reference(value, decimals: decimals), "\(value) \(decimals)")
      }
    }
    #expect(formatFixed(1_500_000_000, decimals: 0) == "2")
    #expect(formatFixed(-1_500_000_000, decimals: 0) == "-2")
    #expect(formatFixed(-1, decimals: 3) == "0.000")
  }
}

/// A row built as bytes (`CSVRecord`) is written as the same fields as strings are, byte for
/// byte: times, integers, empty fields, and fields a spreadsheet would take as formulas or that
/// need quotes.
@Suite struct CSVRecordTests {
  @Test func aRecordIsWrittenAsItsFieldsAsStringsAre() throws {
    let texts = ["plain", "", "a,b", "say \"hi\"", "two\nlines", "=SUM(A1)", "-x", "-1.5", "+3", "@me", "\tx", "né"]
    let times: [Int64] = [
      0, 1, 999_999_999, 1_000_000_000, 86_400_123_456_789, 123_456_789_012_345_678, -1, -2_500_000_000,
    ]
    var record = CSVRecord()
    var strings: [String] = []
    for text in texts {
      record.append(text)
      strings.append(text)
    }
    for nanoseconds in times {
      record.appendSeconds(SimDuration(nanoseconds: nanoseconds))
      strings.append(CSVTable.seconds(SimDuration(nanoseconds: nanoseconds)))
    }
    record.appendSeconds(SimTime?.none)
    record.appendEmpty(count: 2)
    record.append(Int32(-7))
    strings += ["", "", "", "-7"]
    #expect(record.fields == strings)
    var fromRecord: [UInt8] = []
    var fromStrings: [UInt8] = []
    let columns = (0..<strings.count).map { "c\($0)" }
    let byRecord = CSVStream(columns: columns) { fromRecord += $0 }
    let byStrings = CSVStream(columns: columns) { fromStrings += $0 }
    for _ in 0..<2 {
      byRecord.append(record: record)
      byStrings.append(strings)
    }
    try byRecord.finish()
    try byStrings.finish()
    #expect(fromRecord == fromStrings)
    #expect(String(decoding: fromRecord, as: UTF8.self).contains(",'=SUM(A1),'-x,-1.5,"))
    // Reused for the next row: emptied, nothing of the last left. A row of plain fields (digits,
    // names, empty fields) is written in one copy, the same as its strings.
    record.removeAll()
    record.append("next")
    #expect(record.fields == ["next"])
    record.appendEmpty()
    record.appendSeconds(SimDuration(nanoseconds: 1_500_000_000))
    record.append(42)
    record.appendEmpty()
    #expect(record.fields == ["next", "", "1.500000000", "42", ""])
    var plainRecord: [UInt8] = []
    var plainStrings: [UInt8] = []
    let plainByRecord = CSVStream(columns: ["a", "b", "c", "d", "e"]) { plainRecord += $0 }
    let plainByStrings = CSVStream(columns: ["a", "b", "c", "d", "e"]) { plainStrings += $0 }
    plainByRecord.append(record: record)
    plainByStrings.append(record.fields)
    try plainByRecord.finish()
    try plainByStrings.finish()
    #expect(plainRecord == plainStrings)
    #expect(String(decoding: plainRecord, as: UTF8.self) == "a,b,c,d,e\nnext,,1.500000000,42,\n")
  }
}
