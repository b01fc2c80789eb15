import Foundation
@testable import GalleryMeshSimulation
import Testing

/// The simulation's state is bound to the thread that runs it (`SimulationScheduler.owner`): a
/// job or a test that touches it from another thread stops a debug build, shown in a child process.
@Suite("Simulation confinement")
struct SimulationConfinementTests {
    @Test("The scheduler's thread makes lanes and runs events; the owner is that thread")
    func ownThreadPasses() {
        let scheduler = SimulationScheduler()
        let lane = scheduler.makeLane()
        var ran = 0
        scheduler.schedule(after: 5, lane: lane) { ran += 1 }
        scheduler.run(until: 10)
        #expect(ran == 1)
        #expect(scheduler.eventsRun == 1)
        #expect(scheduler.owner.isCurrent)
    }

    #if DEBUG
    @Test("Another thread touching the scheduler's state stops a debug build")
    func anotherThreadStops() async {
        await #expect(processExitsWith: .failure) {
            let scheduler = SimulationScheduler()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = scheduler.makeLane()
                done.signal()
            }
            done.wait()
        }
    }
    #endif
}
