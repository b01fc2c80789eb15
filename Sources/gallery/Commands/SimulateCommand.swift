import Foundation
import GallerySimulation

/// `gallery simulate FILE`: replays a schedule and prints the outcome as JSON.
struct SimulateCommand {
    /// The schedule's path, `-` for standard input.
    let path: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        guard let path = arguments.optionalPositional() else { throw arguments.failure("simulate needs a FILE") }
        if arguments.optionalPositional() != nil { throw arguments.failure("simulate takes one FILE") }
        try arguments.expectEnd()
        self.path = path
    }

    func run() throws(CommandFailure) -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw .usage("cannot read \(path)", Usage.simulate)
            }
            data = contents
        }
        do {
            return try Simulator.run(Schedule(json: data)).json
        } catch {
            throw .usage(error.localizedDescription, Usage.simulate)
        }
    }
}
