/// The transitions of an activity machine (`ExportTransition`, `ImportTransition`) that a request
/// fault's declared reaction takes: one each, named alike in both machines.
protocol ReactionTransitions {
  static var waitForRetry: Self { get }
  static var offline: Self { get }
  static var resetDeclared: Self { get }
  static var stallDeclared: Self { get }
  static var recreateZoneDeclared: Self { get }
}

extension ReactionTransitions {
  /// The transition `reaction` takes.
  init(_ reaction: ClientReaction) {
    switch reaction {
    case .retry: self = .waitForRetry
    case .fail: self = .offline
    case .reset: self = .resetDeclared
    case .stall: self = .stallDeclared
    case .recreateZone: self = .recreateZoneDeclared
    }
  }
}
