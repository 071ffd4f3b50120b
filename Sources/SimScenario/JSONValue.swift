/// A parsed JSON value that remembers where it was in the file (for error messages).
public indirect enum JSONValue: Sendable {
  case null
  case bool(Bool)
  /// The number as written (so integers stay exact) and its value.
  case number(String, Double)
  case string(String)
  case array([JSONNode])
  /// Members in file order (duplicates are reported by the parser).
  case object([(key: String, value: JSONNode)])

  /// The JSON type's name, for "expected X, got Y" messages.
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A JSON value with its 1-based line and column.
public struct JSONNode: Sendable {
  public var value: JSONValue
  public var line: Int
  public var column: Int

  public init(value: JSONValue, line: Int, column: Int) {
    self.value = value
    self.line = line
    self.column = column
  }
}

/// A syntax error with its position.
public struct JSONSyntaxError: Error, Equatable, Sendable {
  public var message: String
  public var line: Int
  public var column: Int
}
