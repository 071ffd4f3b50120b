import SimKernel

/// The points a screening runs, each a level (0 … 1) per factor or nil for "as the scenario
/// has it", and the pairs of points whose difference is one factor's elementary effect.
///
/// Every design starts with the one-at-a-time points: the scenario as written, then each factor
/// alone at the low end of its range and at the high end (what `sensitivity.csv`'s `atLow` and
/// `atHigh` report). Morris's method (Morris 1991, "Factorial sampling plans for preliminary
/// computational experiments", Technometrics 33(2); Campolongo et al. 2007's μ*) adds
/// `trajectories` walks on a grid of 4 levels: each starts at a random grid point with every
/// factor set, then moves the factors one by one, in a random order, by Δ = 2/3 (up from the
/// lower two levels, down from the upper two), so each walk of k + 1 points gives one effect per
/// factor, measured away from the defaults and among the other factors' variation.
public struct SensitivityDesign: Sendable {
  public enum Method: String, Sendable, CaseIterable {
    case morris, oat
  }

  /// One pair of points that differ in one factor only.
  public struct Step: Sendable, Equatable {
    public var factor: Int
    public var from: Int
    public var to: Int
    /// The level's change from `from` to `to` (±Δ for Morris, 1 for one-at-a-time).
    public var delta: Double
  }

  /// What each point is, for the points table.
  public enum Role: Sendable, Equatable {
    case base
    case low(factor: Int)
    case high(factor: Int)
    case trajectory(Int)
  }

  public var method: Method
  public var factorCount: Int
  public var points: [[Double?]] = []
  public var roles: [Role] = []
  /// Morris's steps (empty for one-at-a-time).
  public var steps: [Step] = []

  /// The levels of Morris's grid.
  public static let levels = 4
  /// Morris's step: p / (2 (p − 1)) of the unit range for p levels.
  public static let delta = Double(levels) / Double(2 * (levels - 1))

  public init(method: Method, factorCount: Int, trajectories: Int, seed: UInt64) {
    self.method = method
    self.factorCount = factorCount
    points.append([Double?](repeating: nil, count: factorCount))
    roles.append(.base)
    for factor in 0..<factorCount {
      for (level, role) in [(0.0, Role.low(factor: factor)), (1.0, Role.high(factor: factor))] {
        var point = [Double?](repeating: nil, count: factorCount)
        point[factor] = level
        points.append(point)
        roles.append(role)
      }
    }
    guard method == .morris, factorCount > 0 else { return }
    var random = RandomStream(seed: seed, name: "sensitivity.morris")
    let top = Self.levels - 1
    let jump = Self.levels / 2  // Δ in grid steps: Δ × (p − 1) = p / 2
    for trajectory in 0..<trajectories {
      var grid = (0..<factorCount).map { _ in Int(random.nextInt(below: UInt64(Self.levels))) }
      var order = Array(0..<factorCount)
      for index in stride(from: factorCount - 1, to: 0, by: -1) {
        order.swapAt(index, Int(random.nextInt(below: UInt64(index + 1))))
      }
      points.append(grid.map { Double($0) / Double(top) })
      roles.append(.trajectory(trajectory))
      for factor in order {
        let up = grid[factor] + jump <= top
        grid[factor] += up ? jump : -jump
        points.append(grid.map { Double($0) / Double(top) })
        roles.append(.trajectory(trajectory))
        steps.append(
          Step(factor: factor, from: points.count - 2, to: points.count - 1, delta: up ? Self.delta : -Self.delta))
      }
    }
  }

  /// The one-at-a-time points of a factor: its low end and its high end.
  public func endPoints(of factor: Int) -> (low: Int, high: Int) { (1 + 2 * factor, 2 + 2 * factor) }
}
