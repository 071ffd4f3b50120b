import Testing

@testable import SimModel

/// `Column`: the world's reference-semantics tables.
@Suite struct ColumnTests {
  struct Cell {
    var name: String
    var counts: [Int]
  }

  /// Elements survive growth in order, and a nested write lands in place (through `_modify`).
  @Test func growsKeepingElementsAndWritesInPlace() {
    let column = Column<Cell>(capacity: 2)
    for index in 0..<1_000 { column.append(Cell(name: "cell \(index)", counts: [index])) }
    #expect(column.count == 1_000)
    #expect(column.capacity >= 1_000 && column.capacity < 2_048)
    #expect(column.map(\.name) == (0..<1_000).map { "cell \($0)" })
    column[517].counts.append(42)
    column[517].name += "!"
    #expect(column[517].counts == [517, 42])
    #expect(column[517].name == "cell 517!")
    #expect(column[516].counts == [516])
  }

  /// Reserving keeps the elements and makes room without growing past what was asked.
  @Test func reservingKeepsElements() {
    let column = Column<Cell>()
    for index in 0..<3 { column.append(Cell(name: "\(index)", counts: [])) }
    column.reserveCapacity(100)
    #expect(column.capacity == 100)
    #expect(column.map(\.name) == ["0", "1", "2"])
    column.reserveCapacity(10)
    #expect(column.capacity == 100)
    for index in 3..<101 { column.append(Cell(name: "\(index)", counts: [])) }
    #expect(column.capacity == 200)
    #expect(column.count == 101 && column[100].name == "100")
  }

  /// A copy shares the elements: the world is run in place, so this is what it relies on.
  @Test func aCopySharesElements() {
    let column = Column<Int>()
    column.append(1)
    let alias = column
    alias[0] = 7
    #expect(column[0] == 7)
  }
}
