import SimKernel

extension ClientHost {
  /// dasd started `activity` (an export or an import of its store's client).
  @inline(__always)
  mutating func clientActivityStarted(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    switch clients.stores[state.store.index].client {
    case .coreData, .syncEngine:
      switch state.kind {
      case .export:
        setRunning(.export, of: state.store, to: activity)
        exportStep(activity, .started, sim: &sim)
      case .import:
        setRunning(.import, of: state.store, to: activity)
        importStep(activity, .started, sim: &sim)
      case .setup:
        finishRun(activity, succeeded: true, sim: &sim)
      }
    }
  }

  /// The server answered the request `activity` had on the wire.
  @inline(__always)
  mutating func clientRequestAnswered(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    switch clients.stores[state.store.index].client {
    case .coreData, .syncEngine:
      if state.kind == .export {
        exportStep(activity, .answered, sim: &sim)
      } else {
        importStep(activity, .answered, sim: &sim)
      }
    }
  }

  /// The app left the foreground: Core Data asks for its deactivation export; CKSyncEngine sends
  /// only if the app calls `sendChanges` on resign.
  mutating func clientResigned(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    switch clients.stores[store.index].client {
    case .coreData: requestExport(store, trigger: .appDeactivation, sim: &sim)
    case .syncEngine: engineResigned(store, sim: &sim)
    }
  }

  /// A push for `zone` reached the app on `device` (delivered, or released when the person
  /// brought the app forward): each of its stores of the zone reacts as its client does.
  mutating func clientPushReceived(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    for store in storeIDs(of: device) where clients.stores[store.index].zone == zone {
      switch clients.stores[store.index].client {
      case .coreData: requestImport(store, trigger: .push, sim: &sim)
      case .syncEngine: engineReceivedPush(store, sim: &sim)
      }
    }
  }

  /// The app came forward, launched afresh or activated: the store imports if its client does
  /// then, a new process exports the history the last one left, the UI refreshes as the app
  /// does, and the store polls.
  mutating func clientCameForward(_ store: StoreID, launched: Bool, sim: inout Simulation<ModelEvent>) {
    let trigger: ActivityTrigger = launched ? .launch : .activation
    let fetches = fetchesOnForeground(store, launched: launched)
    if fetches {
      requestImport(store, trigger: trigger, sim: &sim)
    }
    if launched {
      exportHistoryLeftByLastProcess(store, sim: &sim)
      engineRelaunched(store, at: sim.now)
    }
    if deviceTraits[traitsIndex(of: owner(of: store))].app.uiRefresh == .onLaunch {
      clients.stores[store.index].uiToken = clients.stores[store.index].appliedToken
    }
    updateVisibility(store, at: sim.now)
    // Only a fetch restarts the interval (spec §7: "polls at launch and then every
    // pollInterval"): a launch or an activation that did not fetch leaves the poll where it was.
    if fetches {
      schedulePoll(store, sim: &sim)
    } else if clients.settings.polling.appUseClock {
      resumePoll(store, sim: &sim)
    } else {
      resumeWallClockPoll(store, sim: &sim)
    }
  }
}
