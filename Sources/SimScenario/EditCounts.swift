import SimModel

/// Each device's edits over a run, counted before it runs: workload edits over the duration and
/// scripted edits, bulk-inserted objects, the objects both make, bulk deletes (as edits), and the
/// saves of bulk inserts and deletes.
///
/// What the edit limits (`ScenarioBuilder.checkWorkload`) and `RunEstimate` count. A device a
/// timeline action names out of range (a spec still being checked) is skipped.
struct EditCounts {
  var edits: [Double]
  var bulk: [Double]
  var objects: [Double]
  var bulkSaves = 0.0

  init(_ spec: WorldSpec) {
    let hours = spec.duration.seconds / 3600
    let workloadEdits = spec.devices.map { device in
      (device.workload?.editsPerHour ?? 0) * min(hours, (device.workload?.until?.seconds ?? .infinity) / 3600)
    }
    edits = workloadEdits
    objects = spec.devices.indices.map { workloadEdits[$0] * (spec.devices[$0].workload?.insertShare ?? 0) }
    bulk = [Double](repeating: 0, count: spec.devices.count)
    for action in spec.timeline {
      for device in action.devices where edits.indices.contains(device) {
        switch action.action {
        case .bulkInsert(let count, _, let oneSave, _):
          bulk[device] += Double(count)
          objects[device] += Double(count)
          bulkSaves += oneSave ? 1 : Double(count)
        case .bulkDelete(let count, _, let oneSave, _):
          // At most every object made so far, by any device (a count may name more than exist).
          let deletes = min(Double(count ?? Int.max), objects.reduce(0, +))
          edits[device] += deletes
          bulkSaves += oneSave ? 1 : deletes
        case .edit(let kind, _, _):
          edits[device] += 1
          if kind == .insert { objects[device] += 1 }
        default: break
        }
      }
    }
  }
}
