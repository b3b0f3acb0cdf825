import { runTask } from './task.js';
import { serveLane, type LaneChannel } from './lane.js';

/** Piscina worker entry: the worker's lane (src/pool/lane.ts), one task after another. */
export default function runLane(channel: LaneChannel): Promise<void> {
  return serveLane(channel, runTask);
}
