import Foundation
import SimMetrics

/// One scenario written to a folder and run through `syncsim run`: its exit code, messages and
/// result folder, with its CSV files read by name. The tests that check a run's numbers start
/// here rather than write, run and parse by hand.
public struct ScenarioRun {
  public let code: Int32
  public let out: String
  public let err: String
  /// The result folder.
  public let folder: String

  /// Writes `text` as `<name>.json` in `directory` and runs it into `<directory>/<name>`, with
  /// `arguments` after the file.
  public init(_ text: String, named name: String, in directory: String, _ arguments: String...) throws {
    try self.init(text, named: name, in: directory, arguments: arguments)
  }

  init(_ text: String, named name: String, in directory: String, arguments: [String]) throws {
    let file = directory + "/\(name).json"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    folder = directory + "/" + name
    (code, out, err) = syncsim(["run", file, "--out", folder] + arguments)
  }

  /// The library scenario `Scenarios/<library>.json` with each edit's text replaced (an edit whose
  /// text is not in the file throws, so a test never runs the unedited scenario by mistake), run
  /// as `<name>` in `directory`, with `arguments` after the file.
  public init(
    library: String, edits: [(String, String)], named name: String, in directory: String, _ arguments: String...
  ) throws {
    var text = try String(contentsOfFile: packageRoot + "/Scenarios/\(library).json", encoding: .utf8)
    for (from, to) in edits {
      guard text.contains(from) else { throw ScenarioRunError.editNotFound(from) }
      text = text.replacingOccurrences(of: from, with: to)
    }
    try self.init(text, named: name, in: directory, arguments: arguments)
  }

  /// The result file `name` (`summary.csv`, `latency.csv`, ...) as a table.
  public func table(_ name: String) throws -> ResultTable {
    let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
    guard let table = CSVTable.parse(text) else { throw ScenarioRunError.unreadable(name) }
    return ResultTable(table: table)
  }

  /// The one row of `summary.csv`, by metric name.
  public func summary(_ metric: String) throws -> Double? {
    try table("summary.csv").rows.first?[metric].flatMap(Double.init)
  }
}

/// A result file's rows, each readable by column name.
public struct ResultTable {
  public let table: CSVTable
  public var columns: [String] { table.columns }
  public var rows: [Row] { table.rows.map { Row(columns: table.columns, values: $0) } }

  public init(table: CSVTable) { self.table = table }

  /// The CSV file at `path`.
  public init(path: String) throws {
    guard let table = CSVTable.parse(try String(contentsOfFile: path, encoding: .utf8)) else {
      throw ScenarioRunError.unreadable(path)
    }
    self.table = table
  }

  /// One row; a column it does not have reads as nil.
  public struct Row {
    let columns: [String]
    public let values: [String]
    public subscript(_ name: String) -> String? { columns.firstIndex(of: name).map { values[$0] } }
    /// The column as seconds or a count; nil when absent or empty.
    public func number(_ name: String) -> Double? { self[name].flatMap(Double.init) }
  }
}

public enum ScenarioRunError: Error {
  case unreadable(String)
  case editNotFound(String)
}
