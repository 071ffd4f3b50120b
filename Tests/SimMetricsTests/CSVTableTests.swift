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
