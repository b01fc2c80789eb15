/// The commands typed right after `gallery` (the node commands follow `-C DIR`).
enum TopLevelCommand: String, CaseIterable {
    case serve
    case simulate
    case help

    /// Its usage text.
    var usage: String {
        switch self {
        case .serve: Usage.serve
        case .simulate: Usage.simulate
        case .help: Usage.overview
        }
    }
}
