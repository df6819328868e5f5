// The Wi-Fi flow's screens, one lazy chunk: the route table (in every first load, the embed's too) then holds one
// loader and one dependency list for the six routes instead of six. Each export is named after its route's path.
export { default as wifiMall } from './WifiMall.tsx';
export { default as packageOrder } from './PackageOrder.tsx';
export { default as scanOrder } from './ScanOrder.tsx';
export { default as scanPickUpOrder } from './ScanPickUpOrder.tsx';
export { default as pickUp } from './PickUp.tsx';
export { default as packageDetail } from './PackageDetail.tsx';
export { default as scanQr } from './ScanQr.tsx';
export { default as mifiOrderDetail } from './OrderDetail.tsx';
