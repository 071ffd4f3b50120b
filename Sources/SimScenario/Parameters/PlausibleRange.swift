import SimKernel

/// Where a parameter could plausibly lie when no published number pins it: the values
/// `syncsim sensitivity` screens it over, shown beside its default in `docs/parameters.md`.
///
/// A key tagged `[assumed]` gets one by rule (`derived(kind:default:)`): a number, duration or
/// distribution from a third of its default to three times it, a bool both ways, a word every
/// choice. A key whose default is off (0 or absent) is a scenario's input, not an assumption, and
/// gets none unless declared. A declared range (a source's spread, a physical bound, a sourced
/// alternative) replaces the rule.
public struct PlausibleRange: Sendable, Equatable {
  /// The values the range spans.
  public enum Span: Sendable, Equatable {
    /// A number from `low` to `high`, in the key's unit (seconds for a duration); `logarithmic`
    /// spaces the levels by ratio (a third to three times is symmetric around the default).
    case numbers(low: Double, high: Double, logarithmic: Bool)
    /// A distribution with every duration multiplied by a factor from `low` to `high` (its shape
    /// kept), levels spaced by ratio.
    case scale(low: Double, high: Double)
    /// One of these JSON values (a bool's two, a word's alternatives).
    case choices([String])
  }

  public var span: Span
  /// Why these bounds: "assumed ×⅓–×3", or the source of a spread.
  public var reason: String

  public init(_ span: Span, reason: String) {
    (self.span, self.reason) = (span, reason)
  }

  /// A number range; by ratio when it spans a factor of 4 or more above zero.
  public static func numbers(_ low: Double, _ high: Double, _ reason: String) -> PlausibleRange {
    PlausibleRange(.numbers(low: low, high: high, logarithmic: low > 0 && high / low >= 4), reason: reason)
  }

  /// A distribution scaled by `low`…`high`.
  public static func scale(_ low: Double, _ high: Double, _ reason: String) -> PlausibleRange {
    PlausibleRange(.scale(low: low, high: high), reason: reason)
  }

  /// Sourced alternatives, or a bool's two values.
  public static func choices(_ values: [String], _ reason: String) -> PlausibleRange {
    PlausibleRange(.choices(values), reason: reason)
  }

  /// The reason the rule gives an `[assumed]` key.
  public static let assumedReason = "assumed ×⅓–×3"

  /// The rule's range for an `[assumed]` key of this kind and default; nil when the default is
  /// off (0, none): such a key is a scenario's input.
  public static func derived<Root>(
    kind: ParameterDefinition<Root>.Kind, default value: ParameterDefinition<Root>.Default
  ) -> PlausibleRange? {
    switch (kind, value) {
    case (.bool, .bool(let flag)):
      return .choices([String(flag), String(!flag)], "assumed: either way")
    case (.choice(let words), .choice(let chosen)):
      return .choices([chosen] + words.filter { $0 != chosen }.map { $0 }, "assumed: any of them")
    case (.distribution, .distribution):
      return .scale(1.0 / 3, 3, assumedReason)
    case (_, .integer(let number)) where number > 0:
      return bounded(kind, low: Double(number) / 3, high: Double(number) * 3)
    case (_, .number(let number)) where number > 0:
      return bounded(kind, low: number / 3, high: number * 3)
    case (_, .duration(let text)):
      guard let seconds = DurationText.seconds(text), seconds > 0 else { return nil }
      return bounded(kind, low: seconds / 3, high: seconds * 3)
    default:
      return nil
    }
  }

  /// ×⅓–×3 held inside the key's own bounds (a percent stays under 100, an integer whole).
  static func bounded<Root>(_ kind: ParameterDefinition<Root>.Kind, low: Double, high: Double) -> PlausibleRange {
    var (low, high) = (low, high)
    var reason = assumedReason
    switch kind {
    case .integer(let min, let max):
      (low, high) = (Swift.max(Double(min), low.rounded()), Swift.min(Double(max), high.rounded()))
    case .number(let min, let max, let above, let below):
      if let min { low = Swift.max(low, min) }
      if let above { low = Swift.max(low, above) }
      if let max, high > max { (high, reason) = (max, reason + ", held at \(Self.text(max))") }
      if let below { high = Swift.min(high, below) }
    case .ratio:
      high = Swift.min(high, 0.99)
    default:
      break
    }
    return .numbers(low, high, reason)
  }

  /// A bound as text: whole numbers without a fraction.
  static func text(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }

  /// The range as a table's cell: "50–450 ms", "×0.33–×3", "`true`, `false`".
  public func cellText(unit: String) -> String {
    switch span {
    case .numbers(let low, let high, _):
      let unitText = unit.isEmpty || unit == "ratio" ? "" : " " + unit
      return "\(Self.short(low))–\(Self.short(high))\(unitText)"
    case .scale(let low, let high):
      return "×\(Self.short(low))–×\(Self.short(high))"
    case .choices(let values):
      return values.map { "`\($0)`" }.joined(separator: ", ")
    }
  }

  /// A number in at most 3 significant digits, whole where it is.
  public static func short(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
    var digits = 3
    var magnitude = abs(value)
    while magnitude >= 10 && digits > 0 {
      magnitude /= 10
      digits -= 1
    }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
  }
}
