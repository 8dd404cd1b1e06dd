// The lean Socket.IO client lives in loadtest/ (one implementation for the load tool and the benchmarks).
export { LeanSocket } from '../loadtest/lean-socket';
