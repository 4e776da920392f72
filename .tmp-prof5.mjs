const s = 'form1[0].Page2[0].InventoryUnstamped[0].Unstamped[0].InventoryUnstamped[0].ChartUnstamped2[0].TotalProductionHeader[0].TP_NonFlowering[0].TP_NonFlowering[0]';
let t = performance.now(); let c = 0;
for (let i = 0; i < 57000; i++) c += s.split('.')[i % 9].replace(/\[\d+\]$/, '').length;
console.log('57k strip', (performance.now() - t).toFixed(1));
t = performance.now();
for (let i = 0; i < 57000; i++) c += s.split('.')[i % 9].length;
console.log('57k split only', (performance.now() - t).toFixed(1));
t = performance.now();
const re = /\[\d+\]$/;
for (let i = 0; i < 57000; i++) { const p = 'TP_NonFlowering[0]'; c += p.replace(re, '').length; }
console.log('57k strip const', (performance.now() - t).toFixed(1));
