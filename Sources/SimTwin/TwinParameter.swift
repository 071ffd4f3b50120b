import SimKernel
import SimModel
import SimScenario

/// A parameter the fit estimates from a log: its scenario key, its prior range, and how a value
/// goes into a world and into the twin's JSON. For a distribution the fit estimates its median
/// and keeps the base scenario's spread (`sigma` of its lognormal; see docs/event-log.md).
public struct TwinParameter: Sendable {
  public var path: String
  public var unit: String
  public var low: Double
  public var high: Double
  /// Uniform on the log of the value (times), else on the value (shares).
  public var logScale: Bool
  /// The summaries that carry information on it (explained in fit.csv when it is not identified).
  public var informedBy: [String]

  /// The fitted set, in the order of fit.csv.
  public static let all: [TwinParameter] = [
    TwinParameter(path: "scheduler.decisionLatency", unit: "s", low: 0.02, high: 20, logScale: true,
      informedBy: ["decision.p50", "exportWait.p50", "exportWait.p90", "pushToImport.p50"]),
    TwinParameter(path: "scheduler.exportStartDelay", unit: "s", low: 0.01, high: 30, logScale: true,
      informedBy: ["exportWait.p50", "exportWait.p90"]),
    TwinParameter(path: "scheduler.importStartDelay", unit: "s", low: 0.005, high: 10, logScale: true,
      informedBy: ["pushToImport.p50"]),
    TwinParameter(path: "cloud.requestLatency", unit: "s", low: 0.01, high: 5, logScale: true,
      informedBy: ["exportDuration.p50", "importDuration.p50"]),
    TwinParameter(path: "cloud.applyTimePerRecord", unit: "s", low: 0.0001, high: 0.05, logScale: true,
      informedBy: ["importPerRecord.p50"]),
    TwinParameter(path: "push.fanoutLatency", unit: "s", low: 0.05, high: 300, logScale: true,
      informedBy: ["pushDelay.p50", "latency.p50"]),
    TwinParameter(path: "push.deliveryLatency", unit: "s", low: 0.005, high: 2, logScale: true,
      informedBy: ["pushHandling.p50"]),
    TwinParameter(path: "push.dropProbability", unit: "ratio", low: 0, high: 0.95, logScale: false,
      informedBy: ["pushShare", "visibleShare"]),
    TwinParameter(path: "push.backgroundBudgetPerHour", unit: "wakes/h", low: 1, high: 1000, logScale: true,
      informedBy: ["pushShare.background", "pushShare", "latency.p90"]),
  ]

  /// The server's throttles, fitted when the log shows the refusal each gives: a device's
  /// requests per minute past which it is answered requestRateLimited (CKError 7), and the
  /// container's requests per second past which it is answered serviceUnavailable (CKError 6).
  /// Their retry-after is not searched for: the log measures it (`TwinMeasurement`).
  public static let deviceThrottle = TwinParameter(
    path: "cloud.deviceThrottleRequestsPerMinute", unit: "requests/min", low: 0.5, high: 600, logScale: true,
    informedBy: ["exportFailedShare", "exportWait.p90"])
  public static let containerThrottle = TwinParameter(
    path: "cloud.throttle.requestsPerSecond", unit: "requests/s", low: 0.005, high: 20, logScale: true,
    informedBy: ["exportFailedShare", "exportWait.p90"])

  /// The value as a person reads it: `2.1 s`, `12 wakes/h`, `0.05`.
  public func text(_ value: Double) -> String {
    switch unit {
    case "s": return DurationText.display(seconds: value)
    case "ratio": return Self.decimal(value, digits: 3)
    default: return Self.decimal(value, digits: 3) + " " + unit
    }
  }

  /// The value at `unit` (0…1) of the prior.
  public func value(atUnit unit: Double) -> Double {
    logScale ? DeterministicMath.exp(DeterministicMath.log(low) + unit * (DeterministicMath.log(high) - DeterministicMath.log(low)))
      : low + unit * (high - low)
  }

  /// The position of `value` in the prior, 0…1.
  public func unit(of value: Double) -> Double {
    logScale
      ? (DeterministicMath.log(value) - DeterministicMath.log(low)) / (DeterministicMath.log(high) - DeterministicMath.log(low))
      : (value - low) / (high - low)
  }

  var definition: ParameterTable.World { ParameterTable.world.first { $0.path == path }! }

  /// The spread kept for a distribution: the base's lognormal sigma, else the default's.
  public func sigma(in spec: WorldSpec) -> Double {
    if case .distribution(.lognormal(_, let sigma))? = definition.read(spec) { return sigma }
    return DeterministicMath.log(2) / 2.3263
  }

  /// The value `spec` holds: a distribution's median, a duration's seconds, a number.
  public func current(in spec: WorldSpec) -> Double {
    switch definition.read(spec) {
    case .distribution(.lognormal(let mu, _))?: return DeterministicMath.exp(mu)
    case .distribution(let distribution)?: return distribution.mean
    case .duration(let duration)?: return duration.seconds
    case .number(let value)?: return value
    case .integer(let value)?: return Double(value)
    default: return 0
    }
  }

  /// Sets the value in `spec`. `sigma` is the spread of a distribution (from `sigma(in:)`).
  public func apply(_ value: Double, sigma: Double, to spec: inout WorldSpec) {
    switch definition.kind {
    case .distribution: definition.apply(&spec, .distribution(.lognormal(mu: DeterministicMath.log(value), sigma: sigma)))
    case .duration: definition.apply(&spec, .duration(SimDuration(seconds: value)))
    case .integer: definition.apply(&spec, .integer(Int(value.rounded())))
    default: definition.apply(&spec, .number(value))
    }
  }

  /// The value as the scenario file writes it.
  func json(_ value: Double, sigma: Double) -> String {
    switch definition.kind {
    case .distribution:
      let p99 = value * DeterministicMath.exp(2.3263 * sigma)
      return "{\"lognormal\": {\"median\": \"\(Self.seconds(value))\", \"p99\": \"\(Self.seconds(p99))\"}}"
    case .duration: return "\"\(Self.seconds(value))\""
    case .integer: return String(Int(value.rounded()))
    default: return Self.decimal(value, digits: 4)
    }
  }

  /// Seconds with six significant digits, as a duration text ("0.412345s").
  static func seconds(_ value: Double) -> String { decimal(value, digits: 6) + "s" }

  /// `value` rounded to `digits` significant digits, written without an exponent.
  public static func decimal(_ value: Double, digits: Int) -> String {
    guard value != 0, value.isFinite else { return "0" }
    let magnitude = Int(DeterministicMath.log(abs(value)) / DeterministicMath.log(10) + 1e-9) + (abs(value) >= 1 ? 1 : 0)
    let decimals = max(0, min(12, digits - magnitude))
    var scaled = (abs(value) * pow10(decimals)).rounded()
    var text = ""
    var integer = UInt64(scaled)
    scaled = 0
    var places = 0
    repeat {
      text = String(integer % 10) + text
      integer /= 10
      places += 1
      if places == decimals { text = "." + text }
    } while integer > 0 || places <= decimals
    if text.hasPrefix(".") { text = "0" + text }
    if text.contains(".") {
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
    }
    return (value < 0 ? "-" : "") + text
  }

  static func pow10(_ n: Int) -> Double {
    var result = 1.0
    for _ in 0..<n { result *= 10 }
    return result
  }
}
