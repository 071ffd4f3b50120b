import SimKernel

/// A timeline action declared as a type: what it is (its traits) and what it does (its
/// behaviour) in one file, so that adding one is that file, its row in `TimelineActionTable`
/// (its name, value and decoding) and, when it imposes a wait of its own, the `WaitCause` case.
///
/// The built-in actions are cases of `TimelineAction.Action`, whose switches name each; a
/// declared one is the case `declared`, whose switches ask it. Its behaviour runs on the world
/// through the routing and the components' ports, as the built-in ones' do in `World.perform`.
public protocol DeclaredTimelineAction: Sendable {
  /// Its name in a scenario.
  var name: String { get }
  /// The only client it applies to (nil: either): the decoder refuses it on another's devices.
  var onlyFor: SyncClient? { get }
  /// Whether it writes to its devices' stores (then a store it names is never a replayed copy).
  var writesToStore: Bool { get }
  /// The wait cause it imposes on its devices' activities, if any: a run whose timeline holds it
  /// reports the cause.
  var waitCause: WaitCause? { get }
  /// Whether it changes one of the four built-in conditions (then held pushes are decided again
  /// and the conditions are reported).
  var changesBuiltInCondition: Bool { get }
  /// Whether it holds what every account shares (the container), so the world cannot run in parts.
  var holdsContainer: Bool { get }
  /// Does the action on `device` now (`sim.now`); `storeIndex` is the entry's `store`, if any.
  func perform(on device: DeviceID, storeIndex: Int?, world: inout World, sim: inout Simulation<ModelEvent>)
  /// Whether `other` is the same action with the same values.
  func isEqual(to other: any DeclaredTimelineAction) -> Bool
}

extension DeclaredTimelineAction {
  public var onlyFor: SyncClient? { nil }
  public var writesToStore: Bool { false }
  public var waitCause: WaitCause? { nil }
  public var changesBuiltInCondition: Bool { false }
  public var holdsContainer: Bool { false }
}

extension DeclaredTimelineAction where Self: Equatable {
  public func isEqual(to other: any DeclaredTimelineAction) -> Bool { (other as? Self) == self }
}

/// A declared action as a value of `TimelineAction.Action` (`.declared`): compared by its own
/// `isEqual`, so the enum keeps its synthesised equality.
public struct DeclaredAction: Equatable, Sendable {
  public let behaviour: any DeclaredTimelineAction

  public init(_ behaviour: any DeclaredTimelineAction) { self.behaviour = behaviour }

  public static func == (lhs: DeclaredAction, rhs: DeclaredAction) -> Bool { lhs.behaviour.isEqual(to: rhs.behaviour) }
}
